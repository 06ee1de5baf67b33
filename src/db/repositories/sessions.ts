import { prepared, type Queryable } from "../db.js";

/** End-user sessions as sign-in, refresh and revoke see them (the user's session list is in users.ts). */
export interface LiveSession {
  id: string;
  userId: string;
  expiresAt: Date | null;
  /** Space-delimited; null for sessions opened before scopes were kept (user:basic). */
  scope: string | null;
}

const toLive = (r: Record<string, any>): LiveSession => ({ id: r.id, userId: r.user_id, expiresAt: r.expires_at, scope: r.scope ?? null });

const FIND_LIVE_SESSION = prepared(
  "find-live-session",
  `SELECT s.id, s.user_id, s.expires_at, s.scope FROM sessions s
     JOIN users u ON u.environment_id = $1 AND u.id = $2 AND u.deleted_at IS NULL
     WHERE s.environment_id = $1 AND s.user_id = $2 AND s.id = $3 AND s.revoked_at IS NULL`,
);

/**
 * The session when it is live: not revoked, the user's, and the user still there (a deleted user's sessions
 * are revoked; a user deleted for good takes its rows along). Null otherwise. This is the source of truth
 * behind the store's revocation markers (src/domain/sessions/revocation.ts).
 */
export async function findLiveSession(q: Queryable, environmentId: string, userId: string, sessionId: string): Promise<LiveSession | null> {
  const row = await q.oneOrNone(FIND_LIVE_SESSION([environmentId, userId, sessionId]));
  return row ? toLive(row) : null;
}

/**
 * A live session waiting for its second factor takes the scope it was kept for; null when it is not waiting
 * (any more), revoked, expired or its user is gone.
 */
export async function completeSecondFactor(q: Queryable, environmentId: string, userId: string, sessionId: string): Promise<LiveSession | null> {
  const row = await q.oneOrNone(
    `UPDATE sessions s SET scope = s.pending_scope, pending_scope = NULL
     FROM users u
     WHERE s.environment_id = $1 AND s.user_id = $2 AND s.id = $3 AND s.revoked_at IS NULL AND s.pending_scope IS NOT NULL
       AND (s.expires_at IS NULL OR s.expires_at > now())
       AND u.environment_id = s.environment_id AND u.id = s.user_id AND u.deleted_at IS NULL
     RETURNING s.id, s.user_id, s.expires_at, s.scope`,
    [environmentId, userId, sessionId],
  );
  return row ? toLive(row) : null;
}

/**
 * Refresh: spends the refresh generation `presented` (the refreshing token's; null for a token from before
 * rotation) and starts `next`, moving the expiry to `lifetimeSeconds` from now but never past the session's
 * absolute end (created_at + maxAgeSeconds). One statement, so of two refreshes with one token exactly one
 * matches (the other, after the row lock, sees the new generation). Null when nothing was rotated: ask
 * refreshRefusal why.
 */
export async function rotateRefresh(
  q: Queryable,
  environmentId: string,
  userId: string,
  sessionId: string,
  r: { presented: string | null; next: string; lifetimeSeconds: number; maxAgeSeconds: number },
): Promise<LiveSession | null> {
  const row = await q.oneOrNone(ROTATE_REFRESH, rotateRefreshParams(environmentId, userId, sessionId, r));
  return row ? toLive(row) : null;
}

/** rotateRefresh's statement ($1-$7: rotateRefreshParams), also run with the read of its user (user-aggregate.ts). */
export const ROTATE_REFRESH = `UPDATE sessions s SET refresh_id = $5, refreshed_at = now(),
       expires_at = LEAST(now() + make_interval(secs => $6), s.created_at + make_interval(secs => $7))
     FROM users u
     WHERE s.environment_id = $1 AND s.user_id = $2 AND s.id = $3 AND s.revoked_at IS NULL
       AND s.refresh_id IS NOT DISTINCT FROM $4::uuid
       AND s.created_at + make_interval(secs => $7) > now()
       AND (s.expires_at IS NULL OR s.expires_at > now())
       AND u.environment_id = $1 AND u.id = $2 AND u.deleted_at IS NULL
     RETURNING s.id, s.user_id, s.expires_at, s.scope`;

export const rotateRefreshParams = (
  environmentId: string,
  userId: string,
  sessionId: string,
  r: { presented: string | null; next: string; lifetimeSeconds: number; maxAgeSeconds: number },
) => [environmentId, userId, sessionId, r.presented, r.next, r.lifetimeSeconds, r.maxAgeSeconds];

/** Why a refresh rotated nothing: the session is gone, past its absolute end, or the generation is spent. */
type RefreshRefusal = { kind: "not_live" } | { kind: "too_old" } | { kind: "spent"; secondsSinceRefresh: number };

export async function refreshRefusal(
  q: Queryable,
  environmentId: string,
  userId: string,
  sessionId: string,
  maxAgeSeconds: number,
): Promise<RefreshRefusal> {
  const row = await q.oneOrNone(
    `SELECT s.created_at + make_interval(secs => $4) <= now() AS too_old,
            extract(epoch FROM now() - coalesce(s.refreshed_at, s.created_at))::float8 AS since
     FROM sessions s
     JOIN users u ON u.environment_id = $1 AND u.id = $2 AND u.deleted_at IS NULL
     WHERE s.environment_id = $1 AND s.user_id = $2 AND s.id = $3 AND s.revoked_at IS NULL`,
    [environmentId, userId, sessionId, maxAgeSeconds],
  );
  if (!row) return { kind: "not_live" };
  if (row.too_old) return { kind: "too_old" };
  return { kind: "spent", secondsSinceRefresh: Number(row.since) };
}

/** Revokes the user's own session; null when it is not theirs or was revoked already. */
export async function revokeUserSession(q: Queryable, environmentId: string, userId: string, sessionId: string): Promise<LiveSession | null> {
  const row = await q.oneOrNone(
    `UPDATE sessions SET revoked_at = now() WHERE environment_id = $1 AND user_id = $2 AND id = $3 AND revoked_at IS NULL
     RETURNING id, user_id, expires_at, scope`,
    [environmentId, userId, sessionId],
  );
  return row ? toLive(row) : null;
}

/** True when the session signed in (was created) less than `seconds` ago. */
export async function signedInWithin(q: Queryable, environmentId: string, userId: string, sessionId: string, seconds: number): Promise<boolean> {
  const row = await q.oneOrNone<{ recent: boolean }>(
    "SELECT created_at > now() - make_interval(secs => $4) AS recent FROM sessions WHERE environment_id = $1 AND user_id = $2 AND id = $3",
    [environmentId, userId, sessionId, seconds],
  );
  return row?.recent === true;
}
