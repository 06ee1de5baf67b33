import type { Queryable } from "../db.js";

/** End-user sessions as sign-in, refresh and revoke see them (the user's session list is in users.ts). */
export interface LiveSession {
  id: string;
  userId: string;
  expiresAt: Date | null;
  /** Space-delimited; null for sessions opened before scopes were kept (user:basic). */
  scope: string | null;
}

const toLive = (r: Record<string, any>): LiveSession => ({ id: r.id, userId: r.user_id, expiresAt: r.expires_at, scope: r.scope ?? null });

export async function insertSession(
  q: Queryable,
  environmentId: string,
  s: { id: string; userId: string; ipAddress: string | null; userAgent: string | null; expiresAt: Date; scope: string; pendingScope?: string },
): Promise<void> {
  await q.none("INSERT INTO sessions (id, environment_id, user_id, ip_address, user_agent, expires_at, scope, pending_scope) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", [
    s.id,
    environmentId,
    s.userId,
    s.ipAddress,
    s.userAgent,
    s.expiresAt,
    s.scope,
    s.pendingScope ?? null,
  ]);
}

/**
 * Moves a live session's expiry to `expiresAt` (a new token for it); null when the session is revoked,
 * expired, not the user's, or the user is gone: such a session cannot get a new token.
 */
export async function extendLiveSession(q: Queryable, environmentId: string, userId: string, sessionId: string, expiresAt: Date): Promise<LiveSession | null> {
  const row = await q.oneOrNone(
    `UPDATE sessions s SET expires_at = $4
     FROM users u
     WHERE s.environment_id = $1 AND s.user_id = $2 AND s.id = $3 AND s.revoked_at IS NULL
       AND (s.expires_at IS NULL OR s.expires_at > now())
       AND u.environment_id = s.environment_id AND u.id = s.user_id AND u.deleted_at IS NULL
     RETURNING s.id, s.user_id, s.expires_at, s.scope`,
    [environmentId, userId, sessionId, expiresAt],
  );
  return row ? toLive(row) : null;
}

/**
 * A live session waiting for its second factor takes the scope it was kept for (and a new expiry); null
 * when it is not waiting (any more), revoked, expired or its user is gone.
 */
export async function completeSecondFactor(q: Queryable, environmentId: string, userId: string, sessionId: string, expiresAt: Date): Promise<LiveSession | null> {
  const row = await q.oneOrNone(
    `UPDATE sessions s SET scope = s.pending_scope, pending_scope = NULL, expires_at = $4
     FROM users u
     WHERE s.environment_id = $1 AND s.user_id = $2 AND s.id = $3 AND s.revoked_at IS NULL AND s.pending_scope IS NOT NULL
       AND (s.expires_at IS NULL OR s.expires_at > now())
       AND u.environment_id = s.environment_id AND u.id = s.user_id AND u.deleted_at IS NULL
     RETURNING s.id, s.user_id, s.expires_at, s.scope`,
    [environmentId, userId, sessionId, expiresAt],
  );
  return row ? toLive(row) : null;
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
