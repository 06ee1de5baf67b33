import { randomUUID } from "node:crypto";
import type { Queryable } from "../db.js";

/**
 * Session keys of embedded wallets: public keys a device registered for its session. A key counts only while
 * its session is live (not revoked, not expired): every read joins sessions, so revoking or ending a session
 * revokes its keys without a second write.
 */

const LIVE = `k.revoked_at IS NULL AND s.revoked_at IS NULL AND (s.expires_at IS NULL OR s.expires_at > now())`;

/** Registers the key for the session (again: a no-op); the session's expiry is recorded beside it. */
export async function insertSessionKey(
  q: Queryable,
  environmentId: string,
  k: { sessionId: string; userId: string; publicKey: string },
): Promise<{ expiresAt: Date | null } | null> {
  const row = await q.oneOrNone(
    `INSERT INTO session_keys (id, environment_id, session_id, user_id, public_key, expires_at)
     SELECT $1, s.environment_id, s.id, s.user_id, $5, s.expires_at FROM sessions s
     WHERE s.environment_id = $2 AND s.id = $3 AND s.user_id = $4 AND s.revoked_at IS NULL AND (s.expires_at IS NULL OR s.expires_at > now())
     ON CONFLICT (environment_id, session_id, public_key) DO UPDATE SET expires_at = EXCLUDED.expires_at
     RETURNING expires_at`,
    [randomUUID(), environmentId, k.sessionId, k.userId, k.publicKey],
  );
  return row ? { expiresAt: row.expires_at } : null;
}

/** Whether the user has this key registered for a live session. */
export async function isLiveSessionKey(q: Queryable, environmentId: string, userId: string, publicKey: string): Promise<boolean> {
  const row = await q.oneOrNone(
    `SELECT 1 FROM session_keys k JOIN sessions s ON s.environment_id = k.environment_id AND s.id = k.session_id
     WHERE k.environment_id = $1 AND k.user_id = $2 AND k.public_key = $3 AND ${LIVE} LIMIT 1`,
    [environmentId, userId, publicKey],
  );
  return row !== null;
}

/** The key last registered for this live session of the user, or null. */
export async function latestSessionKey(q: Queryable, environmentId: string, userId: string, sessionId: string): Promise<string | null> {
  const row = await q.oneOrNone(
    `SELECT k.public_key FROM session_keys k JOIN sessions s ON s.environment_id = k.environment_id AND s.id = k.session_id
     WHERE k.environment_id = $1 AND k.user_id = $2 AND k.session_id = $3 AND ${LIVE}
     ORDER BY k.created_at DESC LIMIT 1`,
    [environmentId, userId, sessionId],
  );
  return row?.public_key ?? null;
}
