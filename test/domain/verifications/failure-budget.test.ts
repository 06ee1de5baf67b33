import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FailureBudget } from "../../../src/domain/verifications/budgets.js";
import { CodeBook } from "../../../src/domain/verifications/codes.js";
import { createStore, type EphemeralStore } from "../../../src/store/store.js";
import { testEnv } from "../../setup/env.js";

/**
 * The daily budget of wrong codes per identifier, against the real Redis: shared by every verification of
 * the identifier (and so by sign-in, adding it, and the e-mail second factor, which all redeem through the
 * one CodeBook), counted before the code is looked at, with right codes credited back.
 */

let store: EphemeralStore;
beforeAll(async () => {
  store = await createStore(testEnv().redisUrl, { keyPrefix: `failure-budget-${randomUUID()}:` });
});
afterAll(() => store?.close());

const never = async () => false;
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");
const codeOf = async (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e: { code?: string }) => e.code,
  );

describe("FailureBudget", () => {
  it("spends on wrong codes across verifications of one identifier, never on right ones; other identifiers keep theirs", async () => {
    const env = randomUUID();
    const book = new CodeBook(store, randomBytes(32), 6);
    const open = () => book.open(env, "email", "guessed@example.com", false);
    const a = await open();
    // A right code does not use the budget.
    for (let i = 0; i < 3; i++) {
      const ok = await open();
      expect(await book.redeem(env, "email", ok.id, ok.code!, never)).toBe("guessed@example.com");
    }
    for (let i = 0; i < 5; i++) expect(await codeOf(book.redeem(env, "email", a.id, wrong(a.code!), never))).toBe("invalid_verification_code");
    const b = await open();
    expect(await codeOf(book.redeem(env, "email", b.id, wrong(b.code!), never))).toBe("invalid_verification_code");
    // Six wrong codes today: the right one is refused too, and no new code is worth sending.
    await expect(book.redeem(env, "email", b.id, b.code!, never)).rejects.toMatchObject({ kind: "rate_limited", code: "too_many_wrong_codes" });
    await expect(book.checkFailuresLeft(env, "guessed@example.com")).rejects.toMatchObject({ code: "too_many_wrong_codes", payload: { retryAfterSeconds: expect.any(Number) } });
    await book.checkFailuresLeft(env, "other@example.com");
    await book.checkFailuresLeft(randomUUID(), "guessed@example.com");
  });

  it("a phone number is counted by its E.164 form, whatever verification carries it", async () => {
    const env = randomUUID();
    const book = new CodeBook(store, randomBytes(32), 2);
    const phone = { e164: "+14155550123", phoneNumber: "4155550123", phoneCountryCode: "1", isoCountryCode: "US" };
    for (let i = 0; i < 2; i++) {
      const v = await book.open(env, "sms", { ...phone }, false);
      expect(await codeOf(book.redeem(env, "sms", v.id, wrong(v.code!), never))).toBe("invalid_verification_code");
    }
    await expect(book.checkFailuresLeft(env, phone)).rejects.toMatchObject({ code: "too_many_wrong_codes" });
  });

  it("concurrent guesses cannot go past the budget together", async () => {
    const env = randomUUID();
    const budget = new FailureBudget(store, 5);
    const results = await Promise.all(Array.from({ length: 20 }, () => codeOf(budget.attempt(env, "burst@example.com"))));
    expect(results.filter((r) => r === "ok")).toHaveLength(5);
    expect(new Set(results.filter((r) => r !== "ok"))).toEqual(new Set(["too_many_wrong_codes"]));
  });

  it("0 means unbounded", async () => {
    const budget = new FailureBudget(store, 0);
    for (let i = 0; i < 50; i++) await budget.attempt("env", "any@example.com");
    await budget.checkLeft("env", "any@example.com");
  });
});
