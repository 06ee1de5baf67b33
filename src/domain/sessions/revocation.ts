import type { Database } from "../../db/db.js";
import { findLiveSession } from "../../db/repositories/sessions.js";
import type { EphemeralStore } from "../../store/store.js";
import { MAX_JWT_EXPIRATION_SECONDS } from "../environments/settings.js";

/**
 * Whether a session is revoked, as every api process sees it. Postgres is the source of truth (the
 * session's revoked_at, its user's deleted_at, its row at all: a user deleted for good takes its sessions
 * along); the shared store holds what was last learnt of it, so that a session check costs one store read:
 *
 * - "revoked", written by every revocation after its commit and kept until the session's last token has
 *   expired (after that the token fails on its own), so a revocation is seen by every process at once;
 * - "live", written by a check that found the row live, for LIVE_FOR_SECONDS only and never over "revoked"
 *   (set-if-absent, while a revocation overwrites it);
 * - nothing: never checked, or forgotten (a restart of the in-process store, a Redis without persistence,
 *   with eviction or flushed). Then Postgres answers, so a store that forgets fails closed: it costs a read,
 *   never a revoked session that works again.
 */
const stateKey = (sessionId: string) => `session:state:${sessionId}`;
const REVOKED = "revoked";
const LIVE = "live";

/**
 * How long a "live" answer is trusted. It only matters when a revocation committed but could not write its
 * marker (the store was down), and it bounds how long that goes unseen; otherwise the marker wins at once.
 */
const LIVE_FOR_SECONDS = 60;

/** Slack over the token's expiry, for clocks of api processes that run a little behind. */
const CLOCK_SLACK_SECONDS = 60;

export async function markSessionsRevoked(store: EphemeralStore, sessions: { id: string; expiresAt: Date | null }[]): Promise<void> {
  const now = Date.now();
  await Promise.all(
    sessions.map((s) => {
      // A session of before expires_at existed lives at most the longest lifetime an environment may set.
      const left = s.expiresAt ? Math.ceil((s.expiresAt.getTime() - now) / 1000) : MAX_JWT_EXPIRATION_SECONDS;
      return store.set(stateKey(s.id), REVOKED, Math.max(1, left) + CLOCK_SLACK_SECONDS);
    }),
  );
}

/** The session a token names, as authentication checks it. */
interface SessionRef {
  environmentId: string;
  userId: string;
  sessionId: string;
  /** Unix seconds: the token's expiry, so a marker learnt here lasts as long as the token could. */
  expiresAt: number;
}

export async function isSessionRevoked(deps: { store: EphemeralStore; db: Database }, s: SessionRef): Promise<boolean> {
  const known = await deps.store.get(stateKey(s.sessionId));
  if (known === REVOKED) return true;
  if (known === LIVE) return false;
  const live = await findLiveSession(deps.db, s.environmentId, s.userId, s.sessionId);
  if (!live) {
    await markSessionsRevoked(deps.store, [{ id: s.sessionId, expiresAt: new Date(s.expiresAt * 1000) }]);
    return true;
  }
  await deps.store.setIfAbsent(stateKey(s.sessionId), LIVE, LIVE_FOR_SECONDS);
  return false;
}
