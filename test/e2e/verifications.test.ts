import { randomUUID } from "node:crypto";
import { Configuration, NextViewEnum, SDKApi } from "@dynamic-labs/sdk-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_VERIFICATION_SETTINGS } from "../../src/config.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { signInAs } from "../support/sessions.js";
import { codeIn, startSmsPeer, startSmtpPeer } from "./support/code-peers.js";
import { refused } from "../support/sdk-client.js";
import { waitFor } from "../support/poll.js";

/**
 * E-mail and SMS one-time codes through the published client's SDKApi (unchanged, basePath /api/v0), with a
 * real SMTP server and a real SMS gateway peer on loopback: the codes are read from what they received.
 */

let app: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let smsPeer: Awaited<ReturnType<typeof startSmsPeer>>;
let t: BootstrapResult;
let env: string;

beforeAll(async () => {
  smtp = await startSmtpPeer();
  smsPeer = await startSmsPeer();
  app = await startTestApp({
    verifications: { ...DEFAULT_VERIFICATION_SETTINGS, smtpUrl: smtp.url, smsApiUrl: smsPeer.url, mailFrom: "Acme <codes@acme.example>" },
  });
  t = await app.bootstrap({ ownerEmail: `codes-${randomUUID()}@example.com` });
  env = t.environmentId;
  await manage(t, "PUT", `/environments/${env}`, { general: { displayName: "Acme" } });
  await manage(t, "POST", `/environments/${env}/settings/providers`, {
    provider: "sms",
    accountSid: "AC0123456789",
    smsNumber: "+15005550006",
    clientSecret: "sms-auth-token",
  });
}, 60_000);
afterAll(async () => {
  await app?.stop();
  await smtp?.close();
  await smsPeer?.close();
});

const sdk = (jwt?: string) =>
  new SDKApi(new Configuration({ basePath: `${app.baseUrl}/api/v0`, ...(jwt ? { accessToken: jwt, headers: { Authorization: `Bearer ${jwt}` } } : {}) }));
const manage = async (tenant: BootstrapResult, method: string, p: string, body?: unknown) => {
  const res = await call(app.baseUrl, method, p, { token: tenant.token, body });
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${res.text}`);
  return res.body;
};
const newEmail = () => `user-${randomUUID()}@example.com`;

/** Creates an e-mail verification and reads its code from the SMTP server. */
async function emailCode(email: string, environmentId = env) {
  // Addresses are sent to (and identify users) in lowercase.
  const to = email.toLowerCase();
  const before = smtp.countTo(to);
  const created = await sdk().createEmailVerification({ environmentId, emailVerificationCreateRequest: { email } });
  const mail = await smtp.mailTo(to, before);
  return { verificationUUID: created.verificationUUID, code: codeIn(mail.parsed.text ?? ""), created, mail };
}
const signIn = (verificationUUID: string, verificationToken: string, environmentId = env) =>
  sdk().signInWithEmailVerification({ environmentId, emailVerificationVerifyRequest: { verificationUUID, verificationToken } });
const otherCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

describe("e-mail codes", () => {
  it("sends a 6-digit code over SMTP (AUTH, From, subject, the app's name) and signs up, then signs in", async () => {
    const email = newEmail();
    const { verificationUUID, code, created, mail } = await emailCode(email);
    expect(created).toEqual({ verificationUUID, email });
    expect(mail.envelopeTo).toEqual([email]);
    expect(verificationUUID).toMatch(/^[0-9a-f-]{36}$/);
    expect(code).toMatch(/^\d{6}$/);
    expect(mail.authUser).toBe("sigil");
    expect(mail.parsed.from?.value).toEqual([{ name: "Acme", address: "codes@acme.example" }]);
    expect(mail.parsed.subject).toBe("Your sign-in code for Acme");
    const first = await signIn(verificationUUID, code);
    expect(first.user.newUser).toBe(true);
    expect(first.jwt).toBeTruthy();
    expect(first.expiresAt).toBeGreaterThan(Date.now() / 1000);
    expect(first.user.verifiedCredentials?.some((c) => c.email === email && c.format === "email")).toBe(true);
    await sdk(first.jwt).sessionCheck({ environmentId: env });

    const again = await emailCode(email.toUpperCase());
    const second = await signIn(again.verificationUUID, again.code);
    expect(second.user.newUser).toBe(false);
    expect(second.user.id).toBe(first.user.id);
  });

  it("a code is single use: the second redemption finds no verification (404)", async () => {
    const { verificationUUID, code } = await emailCode(newEmail());
    await signIn(verificationUUID, code);
    const reused = await refused(signIn(verificationUUID, code));
    expect(reused.status).toBe(404);
    expect(reused.body).toMatchObject({ code: "verification_not_found" });
  });

  it("a wrong code answers 422 and changes nothing: the right one still works", async () => {
    const { verificationUUID, code } = await emailCode(newEmail());
    const wrong = await refused(signIn(verificationUUID, otherCode(code)));
    expect(wrong.status).toBe(422);
    expect(wrong.body).toMatchObject({ code: "invalid_verification_code", payload: { attemptsLeft: 4 } });
    expect((await signIn(verificationUUID, code)).user.newUser).toBe(true);
  });

  it("after 5 wrong codes the verification is dead: the 6th attempt fails even with the right code", async () => {
    const email = newEmail();
    const { verificationUUID, code } = await emailCode(email);
    for (let i = 0; i < 5; i++) expect((await refused(signIn(verificationUUID, otherCode(code)))).body.code).toBe("invalid_verification_code");
    const sixth = await refused(signIn(verificationUUID, code));
    expect(sixth.status).toBe(422);
    expect(sixth.body.code).toBe("too_many_attempts");
    // A retry cannot revive it either.
    const retry = await refused(sdk().retryEmailVerification({ environmentId: env, emailVerificationRetryRequest: { verificationUUID, email } }));
    expect(retry.body.code).toBe("too_many_attempts");
  });

  it("an expired verification is gone (404), its code with it", async () => {
    const { verificationUUID, code } = await emailCode(newEmail());
    // Ten minutes pass: the store forgets the verification and its code (their TTLs end).
    const key = `verification:${env}:email:${verificationUUID}`;
    const value = await app.store.get(key);
    expect(value).not.toBeNull();
    expect(value).not.toContain(code);
    await app.store.set(key, value!, 0.01);
    await waitFor("the verification to expire", async () => (await app.store.get(key)) === null);
    const late = await refused(signIn(verificationUUID, code));
    expect(late.status).toBe(404);
    expect(late.body.code).toBe("verification_not_found");
  });

  it("retry sends a new code and the previous one stops working; the address must be the verification's", async () => {
    const email = newEmail();
    const first = await emailCode(email);
    const retried = await sdk().retryEmailVerification({ environmentId: env, emailVerificationRetryRequest: { verificationUUID: first.verificationUUID, email } });
    expect(retried).toEqual({ verificationUUID: first.verificationUUID, email });
    const code = codeIn((await smtp.mailTo(email, 1)).parsed.text ?? "");
    const mismatch = await refused(
      sdk().retryEmailVerification({ environmentId: env, emailVerificationRetryRequest: { verificationUUID: first.verificationUUID, email: newEmail() } }),
    );
    expect(mismatch).toMatchObject({ status: 422, body: { code: "verification_identifier_mismatch" } });
    if (code !== first.code) expect((await refused(signIn(first.verificationUUID, first.code))).body.code).toBe("invalid_verification_code");
    expect((await signIn(first.verificationUUID, code)).user.newUser).toBe(true);
  });

  it("two concurrent redemptions of one code: exactly one signs in", async () => {
    const { verificationUUID, code } = await emailCode(newEmail());
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => signIn(verificationUUID, code)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results.filter((r) => r.status === "rejected")) {
      const reason = (r as PromiseRejectedResult).reason as { response?: Response; status?: number };
      expect([404, 422]).toContain(reason.response?.status ?? reason.status);
    }
  });

  it("3 codes per minute per address (creations and retries together): then 429 with Retry-After", async () => {
    const email = newEmail();
    const { verificationUUID } = await emailCode(email);
    await sdk().retryEmailVerification({ environmentId: env, emailVerificationRetryRequest: { verificationUUID, email } });
    await sdk().createEmailVerification({ environmentId: env, emailVerificationCreateRequest: { email: email.toUpperCase() } });
    const before = smtp.countTo(email);
    const limited = await refused(sdk().createEmailVerification({ environmentId: env, emailVerificationCreateRequest: { email } }));
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.body.payload).toEqual({ scope: "identifier", limit: 3, window: "1m", setting: "SIGIL_CODE_SENDS_PER_MINUTE", retryAfterSeconds: retryAfter });
    expect(limited.body.error).toBe(`too many codes sent to this e-mail address: at most 3 a minute (SIGIL_CODE_SENDS_PER_MINUTE); retry in ${retryAfter} s`);
    expect(smtp.countTo(email)).toBe(before);
    // Another address is not affected.
    await emailCode(newEmail());
  });

  it("a verification of one environment is unknown in another", async () => {
    const other = await app.bootstrap({ ownerEmail: `codes-other-${randomUUID()}@example.com` });
    const { verificationUUID, code } = await emailCode(newEmail());
    const elsewhere = await refused(signIn(verificationUUID, code, other.environmentId));
    expect(elsewhere).toMatchObject({ status: 404, body: { code: "verification_not_found" } });
    expect((await signIn(verificationUUID, code)).user.newUser).toBe(true);
  });

  it("e-mail sign-in disabled in the environment: 403 before any code is sent", async () => {
    const other = await app.bootstrap({ ownerEmail: `codes-noemail-${randomUUID()}@example.com` });
    const provider = await manage(other, "POST", `/environments/${other.environmentId}/settings/providers`, { provider: "emailOnly" });
    await manage(other, "PUT", `/settings/providers/${provider.id}/disable`);
    const email = newEmail();
    const r = await refused(sdk().createEmailVerification({ environmentId: other.environmentId, emailVerificationCreateRequest: { email } }));
    expect(r).toMatchObject({ status: 403, body: { code: "sign_in_method_disabled" } });
    expect(smtp.countTo(email)).toBe(0);
  });

  it("rejects bad input with 400 and sends nothing", async () => {
    const bad = await refused(sdk().createEmailVerification({ environmentId: env, emailVerificationCreateRequest: { email: "not-an-address" } }));
    expect(bad.status).toBe(400);
    const badId = await refused(signIn("not-a-uuid", "123456"));
    expect(badId.status).toBe(400);
  });

  it("a failing SMTP server answers 503 mail_unavailable and leaves no usable verification", async () => {
    const email = newEmail();
    smtp.state.reject = true;
    try {
      const failed = await refused(sdk().createEmailVerification({ environmentId: env, emailVerificationCreateRequest: { email } }));
      expect(failed.status).toBe(503);
      expect(failed.body.code).toBe("mail_unavailable");
    } finally {
      smtp.state.reject = false;
    }
    expect(smtp.countTo(email)).toBe(0);
    const { verificationUUID, code } = await emailCode(email);
    expect((await signIn(verificationUUID, code)).user.newUser).toBe(true);
  });
});

describe("verifyEmailVerification: adding an address to the signed-in user", () => {
  it("adds the verified e-mail to the user and answers new tokens with nextView done", async () => {
    const me = await signInAs(app, env);
    const email = newEmail();
    const { verificationUUID, code } = await emailCode(email);
    const r = await sdk(me.jwt).verifyEmailVerification({ environmentId: env, emailVerificationVerifyRequest: { verificationUUID, verificationToken: code } });
    expect(r.nextView).toBe(NextViewEnum.Done);
    expect(r.user.id).toBe(me.userId);
    expect(r.jwt).toBeTruthy();
    expect(r.user.verifiedCredentials?.map((c) => c.email)).toEqual(expect.arrayContaining([me.email, email]));
    // Signing in with the added address now signs in the same user.
    const again = await emailCode(email);
    expect((await signIn(again.verificationUUID, again.code)).user.id).toBe(me.userId);
  });

  it("another user's address: 422 credential_owned_by_another_user", async () => {
    const me = await signInAs(app, env);
    const someoneElse = await signInAs(app, env);
    const { verificationUUID, code } = await emailCode(someoneElse.email);
    const taken = await refused(sdk(me.jwt).verifyEmailVerification({ environmentId: env, emailVerificationVerifyRequest: { verificationUUID, verificationToken: code } }));
    expect(taken.status).toBe(422);
    expect(taken.body.code).toBe("credential_owned_by_another_user");
  });

  it("needs a session: 401 without one, and the code is not spent", async () => {
    const { verificationUUID, code } = await emailCode(newEmail());
    const anonymous = await refused(sdk().verifyEmailVerification({ environmentId: env, emailVerificationVerifyRequest: { verificationUUID, verificationToken: code } }));
    expect(anonymous.status).toBe(401);
    expect((await signIn(verificationUUID, code)).user.newUser).toBe(true);
  });
});

describe("the test account", () => {
  it("its fixed code signs in its own address (no mail sent) and no other", async () => {
    const tenant = await app.bootstrap({ ownerEmail: `codes-review-${randomUUID()}@example.com` });
    const e = tenant.environmentId;
    const reviewer = `reviewer-${randomUUID()}@example.com`;
    const account = await manage(tenant, "POST", `/environments/${e}/test/account`, { email: reviewer });
    const fixed: string = account.code;
    const created = await sdk().createEmailVerification({ environmentId: e, emailVerificationCreateRequest: { email: reviewer } });
    const stranger = newEmail();
    const other = await emailCode(stranger, e);
    // Nothing to wait for: the test is that no mail reaches the reviewer within this time.
    await new Promise((r) => setTimeout(r, 100));
    expect(smtp.countTo(reviewer)).toBe(0);
    if (fixed !== other.code) {
      const wrong = await refused(signIn(other.verificationUUID, fixed, e));
      expect(wrong.body.code).toBe("invalid_verification_code");
    }
    const r = await signIn(created.verificationUUID, fixed, e);
    expect(r.user.verifiedCredentials?.some((c) => c.email === reviewer)).toBe(true);
    // Single use like any code.
    expect((await refused(signIn(created.verificationUUID, fixed, e))).status).toBe(404);
  });
});

describe("SMS codes", () => {
  const phone = { phoneCountryCode: "1", phoneNumber: "4155550123", isoCountryCode: "US" };
  // Distinct numbers within the run (every 415-555-xxxx is a valid US number to libphonenumber).
  let next = 1000 + Math.floor(Math.random() * 8000);
  const freshPhone = () => ({ ...phone, phoneNumber: `415555${next++}` });
  async function smsCode(p: typeof phone, environmentId = env) {
    const e164 = `+${p.phoneCountryCode}${p.phoneNumber}`;
    const before = smsPeer.countTo(e164);
    const created = await sdk().createSmsVerification({ environmentId, smsVerificationCreateRequest: p });
    const sms = await smsPeer.smsTo(e164, before);
    return { created, sms, code: codeIn(sms.form.Body ?? ""), verificationUUID: created.verificationUUID };
  }
  const smsSignIn = (verificationUUID: string, verificationToken: string) =>
    sdk().signInWithSmsVerification({ environmentId: env, smsVerificationVerifyRequest: { verificationUUID, verificationToken } });

  it("posts the Messages API form with Basic auth to the gateway, then signs up and in", async () => {
    const p = freshPhone();
    const { created, sms, code, verificationUUID } = await smsCode(p);
    expect(created).toEqual({ verificationUUID, ...p });
    expect(sms.method).toBe("POST");
    expect(sms.path).toBe("/2010-04-01/Accounts/AC0123456789/Messages.json");
    expect(sms.authorization).toBe(`Basic ${Buffer.from("AC0123456789:sms-auth-token").toString("base64")}`);
    expect(sms.contentType).toMatch(/^application\/x-www-form-urlencoded/);
    expect(sms.form).toMatchObject({ To: `+1${p.phoneNumber}`, From: "+15005550006" });
    expect(sms.form.Body).toContain("Acme");
    const first = await smsSignIn(verificationUUID, code);
    expect(first.user.newUser).toBe(true);
    expect(first.user.verifiedCredentials?.some((c) => c.format === "phoneNumber" && c.phoneNumber === p.phoneNumber)).toBe(true);
    const again = await smsCode(p);
    const second = await smsSignIn(again.verificationUUID, again.code);
    expect(second.user).toMatchObject({ id: first.user.id, newUser: false });
  });

  it("validates the number with libphonenumber: 400 invalid_phone_number", async () => {
    for (const bad of [
      { phoneCountryCode: "1", phoneNumber: "123", isoCountryCode: "US" },
      { phoneCountryCode: "44", phoneNumber: "4155550123", isoCountryCode: "US" },
      { phoneCountryCode: "1", phoneNumber: "4155550123", isoCountryCode: "GB" },
    ]) {
      const r = await refused(sdk().createSmsVerification({ environmentId: env, smsVerificationCreateRequest: bad }));
      expect(r).toMatchObject({ status: 400, body: { code: "invalid_phone_number" } });
    }
  });

  it("wrong, reused, 6th wrong, retry and the per-number limit behave as for e-mail", async () => {
    const p = freshPhone();
    const { code, verificationUUID } = await smsCode(p);
    expect((await refused(smsSignIn(verificationUUID, otherCode(code)))).body.code).toBe("invalid_verification_code");
    const retried = await sdk().retrySmsVerification({ environmentId: env, smsVerificationRetryRequest: { verificationUUID, ...p } });
    expect(retried.verificationUUID).toBe(verificationUUID);
    const fresh = codeIn((await smsPeer.smsTo(`+1${p.phoneNumber}`, 1)).form.Body ?? "");
    if (fresh !== code) expect((await refused(smsSignIn(verificationUUID, code))).body.code).toBe("invalid_verification_code");
    await smsSignIn(verificationUUID, fresh);
    expect((await refused(smsSignIn(verificationUUID, fresh))).status).toBe(404);
    await sdk().createSmsVerification({ environmentId: env, smsVerificationCreateRequest: p });
    const limited = await refused(sdk().createSmsVerification({ environmentId: env, smsVerificationCreateRequest: p }));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

    const q = freshPhone();
    const dead = await smsCode(q);
    for (let i = 0; i < 5; i++) await refused(smsSignIn(dead.verificationUUID, otherCode(dead.code)));
    expect((await refused(smsSignIn(dead.verificationUUID, dead.code))).body.code).toBe("too_many_attempts");
  });

  it("verifySmsVerification adds the number to the signed-in user", async () => {
    const me = await signInAs(app, env);
    const p = freshPhone();
    const { code, verificationUUID } = await smsCode(p);
    const r = await sdk(me.jwt).verifySmsVerification({ environmentId: env, smsVerificationVerifyRequest: { verificationUUID, verificationToken: code } });
    expect(r.nextView).toBe(NextViewEnum.Done);
    expect(r.user.id).toBe(me.userId);
    expect(r.user.verifiedCredentials?.some((c) => c.phoneNumber === p.phoneNumber)).toBe(true);
  });

  it("a failing gateway answers 503 sms_unavailable", async () => {
    const p = freshPhone();
    smsPeer.state.fail = true;
    try {
      const r = await refused(sdk().createSmsVerification({ environmentId: env, smsVerificationCreateRequest: p }));
      expect(r).toMatchObject({ status: 503, body: { code: "sms_unavailable" } });
    } finally {
      smsPeer.state.fail = false;
    }
  });

  it("an e-mail verification is unknown to the SMS operations (and the other way round)", async () => {
    const { verificationUUID, code } = await emailCode(newEmail());
    expect((await refused(smsSignIn(verificationUUID, code))).body.code).toBe("verification_not_found");
    expect((await signIn(verificationUUID, code)).user.newUser).toBe(true);
  });

  it("the provider's countries bound where codes go; a configured gateway needs the whole account", async () => {
    const other = await app.bootstrap({ ownerEmail: `codes-countries-${randomUUID()}@example.com` });
    const e = other.environmentId;
    const provider = await manage(other, "POST", `/environments/${e}/settings/providers`, {
      provider: "sms",
      accountSid: "AC-countries",
      smsNumber: "+15005550006",
      clientSecret: "token",
      enabledCountries: [{ isoCountryCode: "GB", phoneCountryCode: "44" }],
    });
    const us = await refused(sdk().createSmsVerification({ environmentId: e, smsVerificationCreateRequest: freshPhone() }));
    expect(us).toMatchObject({ status: 422, body: { code: "phone_country_not_enabled" } });
    await manage(other, "PUT", `/settings/providers/${provider.id}`, { clientSecret: "" });
    const gb = { phoneCountryCode: "44", phoneNumber: "7400123456", isoCountryCode: "GB" };
    const incomplete = await refused(sdk().createSmsVerification({ environmentId: e, smsVerificationCreateRequest: gb }));
    expect(incomplete).toMatchObject({ status: 422, body: { code: "sms_provider_incomplete" } });
    expect(smsPeer.countTo("+447400123456")).toBe(0);
  });

  it("the test account's phone number signs in with its fixed code, and no SMS is sent", async () => {
    const other = await app.bootstrap({ ownerEmail: `codes-review-sms-${randomUUID()}@example.com` });
    const e = other.environmentId;
    await manage(other, "POST", `/environments/${e}/settings/providers`, { provider: "sms", accountSid: "AC1", smsNumber: "+15005550006", clientSecret: "token" });
    const p = freshPhone();
    const account = await manage(other, "POST", `/environments/${e}/test/account`, { phoneNumber: `+1${p.phoneNumber}` });
    const created = await sdk().createSmsVerification({ environmentId: e, smsVerificationCreateRequest: p });
    const r = await sdk().signInWithSmsVerification({ environmentId: e, smsVerificationVerifyRequest: { verificationUUID: created.verificationUUID, verificationToken: account.code } });
    expect(r.user.newUser).toBe(true);
    expect(smsPeer.countTo(`+1${p.phoneNumber}`)).toBe(0);
  });

  it("an environment without an enabled sms provider: 403 sign_in_method_disabled, nothing sent", async () => {
    const other = await app.bootstrap({ ownerEmail: `codes-nosms-${randomUUID()}@example.com` });
    const p = freshPhone();
    const r = await refused(sdk().createSmsVerification({ environmentId: other.environmentId, smsVerificationCreateRequest: p }));
    expect(r).toMatchObject({ status: 403, body: { code: "sign_in_method_disabled" } });
    expect(smsPeer.countTo(`+1${p.phoneNumber}`)).toBe(0);
  });
});
