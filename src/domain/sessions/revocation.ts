import type { EphemeralStore } from "../../store/store.js";
import { MAX_JWT_EXPIRATION_SECONDS } from "../environments/settings.js";

/**
 * Revoked sessions, as every api process sees them: a marker per session id in the shared store (Redis in
 * production), kept until the session's last token has expired (after that the token fails on its own).
 * Postgres keeps revoked_at for the record and for refresh; the per-request check reads only the store, so
 * a revocation is seen by every process at its next call.
 */
const markerKey = (sessionId: string) => `session:revoked:${sessionId}`;

/** Slack over the token's expiry, for clocks of api processes that run a little behind. */
const CLOCK_SLACK_SECONDS = 60;

export async function markSessionsRevoked(store: EphemeralStore, sessions: { id: string; expiresAt: Date | null }[]): Promise<void> {
  const now = Date.now();
  await Promise.all(
    sessions.map((s) => {
      // A session of before expires_at existed lives at most the longest lifetime an environment may set.
      const left = s.expiresAt ? Math.ceil((s.expiresAt.getTime() - now) / 1000) : MAX_JWT_EXPIRATION_SECONDS;
      return store.set(markerKey(s.id), "1", Math.max(1, left) + CLOCK_SLACK_SECONDS);
    }),
  );
}

export async function isSessionRevoked(store: EphemeralStore, sessionId: string): Promise<boolean> {
  return (await store.get(markerKey(sessionId))) !== null;
}
