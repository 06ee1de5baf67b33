import { rateLimited } from "../../errors.js";
import type { EphemeralStore } from "../../store/store.js";

/** Wrong answers of one factor that lock it. */
const MAX_FAILURES = 5;
/** Failures count within this window (a passed factor clears them). */
const FAILURE_WINDOW_SECONDS = 3600;
/** The first lock; each further lock within a day doubles it, up to a day. */
const FIRST_LOCK_SECONDS = 60;
const MAX_LOCK_SECONDS = 86_400;

export type SecondFactor = "totp" | "passkey" | "email" | "recovery";

/**
 * Brute-force guard of one second factor of one user: five wrong answers lock that factor for a delay that
 * doubles with each lock in a day (60 s, 120 s, ...). check() counts the attempt before the answer is even
 * verified, so concurrent guesses cannot slip past the limit together; failed() locks on the fifth wrong
 * answer; passed() clears the count (not the lock history, so repeated lockouts keep growing).
 */
export function factorLock(store: EphemeralStore, environmentId: string, userId: string, factor: SecondFactor) {
  const base = `mfa:guard:${environmentId}:${userId}:${factor}`;
  let attempts = 0;
  return {
    async check(): Promise<void> {
      const until = Number(await store.get(`${base}:lock`));
      if (until > Date.now()) throw locked(factor, Math.ceil((until - Date.now()) / 1000));
      attempts = (await store.incrWindow(`${base}:attempts`, FAILURE_WINDOW_SECONDS)).count;
      if (attempts > MAX_FAILURES) throw locked(factor, await lock(store, base));
    },
    async failed(): Promise<void> {
      if (attempts >= MAX_FAILURES) await lock(store, base);
    },
    async passed(): Promise<void> {
      await store.del(`${base}:attempts`);
    },
  };
}

async function lock(store: EphemeralStore, base: string): Promise<number> {
  const locks = (await store.incrWindow(`${base}:locks`, MAX_LOCK_SECONDS)).count;
  const seconds = Math.min(FIRST_LOCK_SECONDS * 2 ** (locks - 1), MAX_LOCK_SECONDS);
  await store.set(`${base}:lock`, String(Date.now() + seconds * 1000), seconds);
  // A new count starts once the lock ends.
  await store.del(`${base}:attempts`);
  return seconds;
}

/** A fixed bound (no setting): five wrong answers within the hour lock the factor. */
const locked = (factor: SecondFactor, retryAfterSeconds: number) =>
  rateLimited(
    "factor_locked",
    `too many wrong ${factor} answers`,
    { scope: "factor", limit: MAX_FAILURES, windowSeconds: FAILURE_WINDOW_SECONDS },
    retryAfterSeconds * 1000,
    "then the factor is locked",
  );
