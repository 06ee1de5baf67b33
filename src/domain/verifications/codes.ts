import { createHmac, hkdfSync, randomInt, randomUUID } from "node:crypto";
import { DomainError, unprocessable } from "../../errors.js";
import type { EphemeralStore } from "../../store/store.js";
import type { Deps } from "../deps.js";
import { FailureBudget } from "./budgets.js";

/**
 * The life of a one-time code, all of it in the store (Redis in production, so every api process sees the
 * same state):
 *
 *   verification:<env>:<channel>:<uuid>            the verification (identifier, current code's MAC, expiry)
 *   verification-code:<env>:<channel>:<uuid>:<mac> the live code; redeeming takes (reads and deletes) it, so
 *                                                  of two concurrent redemptions of one code exactly one wins
 *   verification-attempts:<env>:<channel>:<uuid>   redemption attempts, counted before the code is checked
 *   verification-failures:<env>:<identifier>:<day>  wrong codes of the identifier that day, all verifications
 *                                                  of it together (./budgets.ts)
 *
 * Codes are never stored: only HMAC-SHA256(key, uuid + code), the key derived from the sealing key, so
 * that reading the store does not give away six-digit codes (a plain hash of them is cracked at once).
 */

/** A code is valid this long after it was sent. */
export const CODE_TTL_SECONDS = 600;
/** Retries renew the code, never beyond this age of the verification (the attempts window). */
const MAX_AGE_SECONDS = 3600;
/** Wrong codes a verification survives: the attempt after the fifth wrong one fails even with the right code. */
export const MAX_ATTEMPTS = 5;

export type Channel = "email" | "sms";

export interface Verification<I> {
  channel: Channel;
  identifier: I;
  /** The environment's test account: its fixed code redeems it, nothing was sent. */
  testAccount: boolean;
  codeMac: string | null;
  createdAt: number;
  expiresAt: number;
  dead?: true;
}

const metaKey = (env: string, ch: Channel, id: string) => `verification:${env}:${ch}:${id}`;
const codeKey = (env: string, ch: Channel, id: string, mac: string) => `verification-code:${env}:${ch}:${id}:${mac}`;
const attemptsKey = (env: string, ch: Channel, id: string) => `verification-attempts:${env}:${ch}:${id}`;

export const notFound = () =>
  new DomainError("not_found", "verification_not_found", "no live verification with this id: it expired, was used, or never existed; start a new one");
const tooManyAttempts = () =>
  unprocessable("too_many_attempts", `${MAX_ATTEMPTS} wrong codes were given for this verification: start a new one`);

/** What the daily failure budget counts by: the address, or the number in E.164. */
const identifierKey = (identifier: unknown): string =>
  typeof identifier === "string" ? identifier : (identifier as { e164: string }).e164;

/** Six digits, uniformly drawn. */
export const newCode = () => String(randomInt(0, 1_000_000)).padStart(6, "0");

/** The code book every code path uses (sign-in, adding an address or number, the e-mail second factor). */
export const codeBookOf = (deps: Pick<Deps, "store" | "config">) =>
  new CodeBook(deps.store, deps.config.sealingKeys[0]!.key, deps.config.verifications.failuresPerIdentifierPerDay);

export class CodeBook {
  private readonly macKey: Buffer;
  private readonly failures: FailureBudget;

  constructor(
    private readonly store: EphemeralStore,
    sealingKey: Buffer,
    failuresPerIdentifierPerDay: number,
  ) {
    this.macKey = Buffer.from(hkdfSync("sha256", sealingKey, Buffer.alloc(0), "sigil verification codes", 32));
    this.failures = new FailureBudget(store, failuresPerIdentifierPerDay);
  }

  /** 429 too_many_wrong_codes when the identifier has used its wrong codes of the day: no code is worth sending. */
  async checkFailuresLeft(environmentId: string, identifier: unknown): Promise<void> {
    await this.failures.checkLeft(environmentId, identifierKey(identifier));
  }

  private mac(verificationId: string, code: string): string {
    return createHmac("sha256", this.macKey).update(`${verificationId}:${code}`).digest("base64url");
  }

  /** A new verification and its code (null for the test account, whose fixed code is checked elsewhere). */
  async open<I>(environmentId: string, channel: Channel, identifier: I, testAccount: boolean): Promise<{ id: string; code: string | null }> {
    const id = randomUUID();
    const now = Date.now();
    const code = testAccount ? null : newCode();
    const v: Verification<I> = { channel, identifier, testAccount, codeMac: code && this.mac(id, code), createdAt: now, expiresAt: now + CODE_TTL_SECONDS * 1000 };
    await this.save(environmentId, id, v);
    return { id, code };
  }

  /** The live verification, or 404 verification_not_found. */
  async find<I>(environmentId: string, channel: Channel, id: string): Promise<Verification<I>> {
    const raw = await this.store.get(metaKey(environmentId, channel, id));
    if (!raw) throw notFound();
    return JSON.parse(raw) as Verification<I>;
  }

  /** A retry: a new code for the same verification; the previous code stops working. */
  async renew<I>(environmentId: string, id: string, v: Verification<I>): Promise<string | null> {
    if (v.dead) throw tooManyAttempts();
    const now = Date.now();
    const expiresAt = Math.min(now + CODE_TTL_SECONDS * 1000, v.createdAt + MAX_AGE_SECONDS * 1000);
    if (expiresAt <= now + 1000) throw notFound();
    const code = v.testAccount ? null : newCode();
    const renewed: Verification<I> = { ...v, codeMac: code && this.mac(id, code), expiresAt };
    await this.save(environmentId, id, renewed);
    if (v.codeMac) await this.store.del(codeKey(environmentId, v.channel, id, v.codeMac));
    return code;
  }

  /** Forgets a verification whose code could not be sent: nothing usable is left behind. */
  async discard(environmentId: string, channel: Channel, id: string): Promise<void> {
    const raw = await this.store.get(metaKey(environmentId, channel, id));
    const v = raw ? (JSON.parse(raw) as Verification<unknown>) : null;
    await this.store.del(metaKey(environmentId, channel, id));
    if (v?.codeMac) await this.store.del(codeKey(environmentId, channel, id, v.codeMac));
  }

  /**
   * Redeems a code: the verification's identifier when `code` is its current code (the verification is
   * then gone), else 422 invalid_verification_code, 422 too_many_attempts, or 404 verification_not_found.
   * `fixedCodeMatches` checks the test account's fixed code. The attempt is counted before the code is
   * looked at, so concurrent guesses cannot exceed the bound either; it also counts against the
   * identifier's daily budget of wrong codes (429 too_many_wrong_codes once spent, even with the right code).
   */
  async redeem<I>(
    environmentId: string,
    channel: Channel,
    id: string,
    code: string,
    fixedCodeMatches: (v: Verification<I>) => Promise<boolean>,
  ): Promise<I> {
    const v = await this.find<I>(environmentId, channel, id);
    if (v.dead) throw tooManyAttempts();
    const who = identifierKey(v.identifier);
    await this.failures.attempt(environmentId, who);
    const { count } = await this.store.incrWindow(attemptsKey(environmentId, channel, id), MAX_AGE_SECONDS);
    if (count > MAX_ATTEMPTS) {
      await this.kill(environmentId, id, v);
      throw tooManyAttempts();
    }
    if (await this.matches(environmentId, id, v, code, fixedCodeMatches)) {
      await this.failures.succeeded(environmentId, who);
      await this.store.del(metaKey(environmentId, channel, id));
      return v.identifier;
    }
    if (count >= MAX_ATTEMPTS) await this.kill(environmentId, id, v);
    throw unprocessable("invalid_verification_code", "this is not the code that was sent", { attemptsLeft: MAX_ATTEMPTS - count });
  }

  private async matches<I>(environmentId: string, id: string, v: Verification<I>, code: string, fixed: (v: Verification<I>) => Promise<boolean>) {
    if (!/^[0-9]{6}$/.test(code)) return false;
    if (v.testAccount) {
      // The test account's verification is single use too: whoever takes it first redeems it.
      return (await fixed(v)) && (await this.store.take(metaKey(environmentId, v.channel, id))) !== null;
    }
    const mac = this.mac(id, code);
    if ((await this.store.take(codeKey(environmentId, v.channel, id, mac))) === null) return false;
    // A code replaced by a concurrent retry may still have its key: only the verification's current code counts.
    const current = await this.store.get(metaKey(environmentId, v.channel, id));
    return current !== null && (JSON.parse(current) as Verification<I>).codeMac === mac;
  }

  private async kill<I>(environmentId: string, id: string, v: Verification<I>): Promise<void> {
    if (v.codeMac) await this.store.del(codeKey(environmentId, v.channel, id, v.codeMac));
    const ttl = (v.expiresAt - Date.now()) / 1000;
    if (ttl > 0) await this.store.set(metaKey(environmentId, v.channel, id), JSON.stringify({ ...v, dead: true, codeMac: null }), ttl);
  }

  private async save<I>(environmentId: string, id: string, v: Verification<I>): Promise<void> {
    const ttl = (v.expiresAt - Date.now()) / 1000;
    await this.store.set(metaKey(environmentId, v.channel, id), JSON.stringify(v), ttl);
    if (v.codeMac) await this.store.set(codeKey(environmentId, v.channel, id, v.codeMac), "1", ttl);
  }
}
