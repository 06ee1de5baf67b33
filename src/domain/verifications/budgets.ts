import { rateLimited } from "../../errors.js";
import type { EphemeralStore } from "../../store/store.js";

/**
 * The bounds on one-time codes beyond a single verification's five attempts, all counted in the store
 * (Redis in production: every api process sees the same counts). They are rate budgets, not records:
 * what a lost counter costs is a fresh budget, never a wrong sign-in, so they need no Postgres.
 *
 * - sends per identifier per minute: a mailbox or phone is not flooded;
 * - sends of SMS per environment per hour and per day: numbers an attacker rotates through (SMS pumping)
 *   cannot run up the environment's SMS bill;
 * - wrong codes per identifier per day, across every verification of it (sign-in, adding it to a user,
 *   the e-mail second factor): a guesser who opens verification after verification, from address after
 *   address, still gets that many guesses a day in all.
 */

/** At most `limit` code sends to one identifier a minute (0 = unbounded): 429 rate_limited. */
export async function checkIdentifierSends(store: EphemeralStore, limit: number, environmentId: string, channel: "email" | "sms", identifier: string): Promise<void> {
  if (limit === 0) return;
  const { count, resetInMs } = await store.incrWindow(`verification-sends:${environmentId}:${channel}:${identifier}`, 60);
  if (count > limit) {
    const what = `too many codes sent to this ${channel === "email" ? "e-mail address" : "phone number"}`;
    throw rateLimited("rate_limited", what, { scope: "identifier", limit, windowSeconds: 60, setting: "SIGIL_CODE_SENDS_PER_MINUTE" }, resetInMs);
  }
}

/** The environment's SMS budget, per hour and per day (0 = unbounded): 429 sms_budget_exhausted, nothing sent. */
export async function checkEnvironmentSms(store: EphemeralStore, limits: { perHour: number; perDay: number }, environmentId: string): Promise<void> {
  for (const [limit, seconds, what, setting] of [
    [limits.perHour, 3600, "hour", "SIGIL_SMS_PER_ENVIRONMENT_PER_HOUR"],
    [limits.perDay, 86_400, "day", "SIGIL_SMS_PER_ENVIRONMENT_PER_DAY"],
  ] as const) {
    if (limit === 0) continue;
    const { count, resetInMs } = await store.incrWindow(`verification-sms-budget:${environmentId}:${what}`, seconds);
    if (count > limit)
      throw rateLimited("sms_budget_exhausted", "too many SMS codes sent by this environment", { scope: "environment", limit, windowSeconds: seconds, setting }, resetInMs);
  }
}

const DAY_MS = 86_400_000;

/**
 * Wrong codes per identifier per UTC day. A redemption is counted before its code is looked at (so
 * concurrent guesses cannot slip past together) and a redemption that succeeds is credited back, so only
 * wrong codes use the budget: attempts - successes of the day. Both counters are keyed by the day, so
 * they always describe the same window.
 */
export class FailureBudget {
  constructor(
    private readonly store: EphemeralStore,
    /** 0 = unbounded. */
    private readonly limit: number,
  ) {}

  private keys(environmentId: string, identifier: string) {
    const day = Math.floor(Date.now() / DAY_MS);
    const base = `verification-failures:${environmentId}:${identifier}:${day}`;
    return { attempts: `${base}:attempts`, successes: `${base}:successes`, resetInMs: (day + 1) * DAY_MS - Date.now() };
  }

  private exhausted(resetInMs: number): never {
    // The window is the UTC day: the wait runs to its end.
    throw rateLimited(
      "too_many_wrong_codes",
      "too many wrong codes for this e-mail address or phone number today",
      { scope: "identifier", limit: this.limit, windowSeconds: 86_400, setting: "SIGIL_CODE_FAILURES_PER_IDENTIFIER_PER_DAY" },
      resetInMs,
    );
  }

  /** 429 too_many_wrong_codes when the identifier's budget is spent (before a code is even sent). */
  async checkLeft(environmentId: string, identifier: string): Promise<void> {
    if (this.limit === 0) return;
    const k = this.keys(environmentId, identifier);
    const [attempts, successes] = await Promise.all([this.store.get(k.attempts), this.store.get(k.successes)]);
    if (Number(attempts ?? 0) - Number(successes ?? 0) >= this.limit) this.exhausted(k.resetInMs);
  }

  /** Counts a redemption attempt; 429 too_many_wrong_codes when it would go beyond the budget. */
  async attempt(environmentId: string, identifier: string): Promise<void> {
    if (this.limit === 0) return;
    const k = this.keys(environmentId, identifier);
    const { count } = await this.store.incrWindow(k.attempts, 2 * 86_400);
    const successes = Number((await this.store.get(k.successes)) ?? 0);
    if (count - successes > this.limit) this.exhausted(k.resetInMs);
  }

  /** The attempt was the right code: it does not use the budget. */
  async succeeded(environmentId: string, identifier: string): Promise<void> {
    if (this.limit === 0) return;
    await this.store.incrWindow(this.keys(environmentId, identifier).successes, 2 * 86_400);
  }
}
