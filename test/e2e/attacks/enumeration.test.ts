import { randomUUID } from "node:crypto";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { NextViewEnum, UserFieldsCheckEnum } from "@dynamic-labs/sdk-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_VERIFICATION_SETTINGS } from "../../../src/config.js";
import type { BootstrapResult } from "../../../src/domain/tenancy/bootstrap.js";
import { SdkMfaService } from "../../../src/gen/sigil/mfa/v0/mfa_service_pb.js";
import { OwnAccountService } from "../../../src/gen/sigil/own_account/v0/own_account_service_pb.js";
import { SdkSettingsService } from "../../../src/gen/sigil/sdk_settings/v0/sdk_settings_service_pb.js";
import { SdkVerificationsService } from "../../../src/gen/sigil/verifications/v0/verifications_service_pb.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { call } from "../../support/http.js";
import { refused, sdkFor } from "../../support/sdk-client.js";
import { signInAs } from "../../support/sessions.js";
import { AuthenticatorApp } from "../../support/totp-app.js";
import { codeIn, startSmsPeer, startSmtpPeer } from "../support/code-peers.js";

/**
 * Who has an account is told only to whoever proves the identifier, and the one-time codes that prove it
 * are bounded beyond one verification: a session cannot ask whether someone else's e-mail or phone has an
 * account (check, profile update, e-mail provider), a quoted local part is not a new identifier (block list,
 * send budget), wrong codes are capped per identifier and day however many verifications carry them, and
 * SMS sends are capped per environment however many numbers they go to. Through the published client
 * (REST) and over gRPC.
 */

const FAILURES_PER_DAY = 8;
const SMS_PER_HOUR = 4;

let app: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let smsPeer: Awaited<ReturnType<typeof startSmsPeer>>;
beforeAll(async () => {
  smtp = await startSmtpPeer();
  smsPeer = await startSmsPeer();
  app = await startTestApp({
    verifications: {
      ...DEFAULT_VERIFICATION_SETTINGS,
      smtpUrl: smtp.url,
      smsApiUrl: smsPeer.url,
      failuresPerIdentifierPerDay: FAILURES_PER_DAY,
      smsPerEnvironmentPerHour: SMS_PER_HOUR,
    },
  });
}, 60_000);
afterAll(async () => {
  await app?.stop();
  await smtp?.close();
  await smsPeer?.close();
});

const sdk = (jwt?: string) => sdkFor(app.baseUrl, jwt);
const grpc = () => {
  const transport = createGrpcTransport({ baseUrl: app.baseUrl });
  return {
    own: createClient(OwnAccountService, transport),
    codes: createClient(SdkVerificationsService, transport),
    mfa: createClient(SdkMfaService, transport),
    settings: createClient(SdkSettingsService, transport),
  };
};
const bearer = (jwt: string) => ({ headers: { authorization: `Bearer ${jwt}` } });
const grpcError = (p: Promise<unknown>) =>
  p.then(
    () => ({ code: "ok", message: "" }),
    (e) => {
      const err = ConnectError.from(e);
      return { code: Code[err.code], message: err.rawMessage };
    },
  );
const manage = async (t: BootstrapResult, method: string, path: string, body?: unknown) => {
  const res = await call(app.baseUrl, method, path, { token: t.token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
};
const fresh = (tag: string) => `${tag}-${randomUUID()}@example.com`;
let nextNumber = 1000 + Math.floor(Math.random() * 8000);
const freshNumber = () => `+1415555${nextNumber++}`;
const otherCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

/** An e-mail verification as a client starts one, its code read from the SMTP server. */
async function openVerification(env: string, email: string) {
  const before = smtp.countTo(email);
  const created = await sdk().createEmailVerification({ environmentId: env, emailVerificationCreateRequest: { email } });
  return { id: created.verificationUUID, code: codeIn((await smtp.mailTo(email, before)).parsed.text ?? "") };
}
const signIn = (env: string, verificationUUID: string, verificationToken: string) =>
  sdk().signInWithEmailVerification({ environmentId: env, emailVerificationVerifyRequest: { verificationUUID, verificationToken } });

/** A tenant whose SDK collects e-mail and phone, with an SMS provider. */
async function tenant() {
  const t = await app.bootstrap({ ownerEmail: fresh("enum-owner") });
  await manage(t, "PUT", `/environments/${t.environmentId}`, {
    sdk: { collectUserData: { email: { enabled: true, required: false }, phoneNumber: { enabled: true, required: false } } },
  });
  await manage(t, "POST", `/environments/${t.environmentId}/settings/providers`, {
    provider: "sms", accountSid: "AC0123456789", smsNumber: "+15005550006", clientSecret: "sms-auth-token",
  });
  return t;
}

/** Someone else, with an account holding an e-mail and a phone number. */
async function victim(t: BootstrapResult) {
  const v = await signInAs(app, t.environmentId);
  const phone = freshNumber();
  await manage(t, "PUT", `/users/${v.userId}`, { phoneNumber: phone });
  return { ...v, phone };
}

describe("GET /users/check tells a session nothing about other people's e-mail or phone", () => {
  it("REST: someone's e-mail and phone answer exactly as free ones; the caller's own is available", async () => {
    const t = await tenant();
    const env = t.environmentId;
    const them = await victim(t);
    const me = await signInAs(app, env);
    const check = (field: string, value: string) => sdk(me.jwt).getUserFieldsCheck({ environmentId: env, filter: { field: field as UserFieldsCheckEnum, value } });

    const taken = await refused(check(UserFieldsCheckEnum.Email, them.email));
    const free = await refused(check(UserFieldsCheckEnum.Email, fresh("nobody")));
    expect([taken.status, taken.body.code, taken.body.payload]).toEqual([422, "field_not_checkable", { field: "email" }]);
    expect([free.status, free.body]).toEqual([taken.status, taken.body]);
    const takenPhone = await refused(check("phoneNumber", them.phone));
    const freePhone = await refused(check("phoneNumber", freshNumber()));
    expect([takenPhone.status, takenPhone.body.code]).toEqual([422, "field_not_checkable"]);
    expect(freePhone.body).toEqual(takenPhone.body);
    // Upper case or a quoted local part does not make someone else's address the caller's.
    expect((await refused(check(UserFieldsCheckEnum.Email, them.email.toUpperCase()))).body).toEqual(taken.body);
    expect((await refused(check(UserFieldsCheckEnum.Email, `"${them.email.split("@")[0]}"@example.com`))).status).toBe(400);

    expect(await check(UserFieldsCheckEnum.Email, me.email.toUpperCase())).toMatchObject({ available: true });
  });

  it("REST: the caller's own pending change is answered, and the same for a taken address as for a free one", async () => {
    const t = await tenant();
    const env = t.environmentId;
    const them = await victim(t);
    const me = await signInAs(app, env);
    const check = (value: string) => sdk(me.jwt).getUserFieldsCheck({ environmentId: env, filter: { field: UserFieldsCheckEnum.Email, value } });
    await sdk(me.jwt).updateSelf({ environmentId: env, userFields: { email: them.email } });
    expect(await check(them.email)).toEqual({ field: "email", value: them.email, available: true });
    const other = fresh("pending");
    await sdk(me.jwt).updateSelf({ environmentId: env, userFields: { email: other } });
    expect(await check(other)).toEqual({ field: "email", value: other, available: true });
    // Only the latest change is the caller's own.
    expect((await refused(check(them.email))).body.code).toBe("field_not_checkable");
  });

  it("gRPC: the same answers", async () => {
    const t = await tenant();
    const env = t.environmentId;
    const them = await victim(t);
    const me = await signInAs(app, env);
    const { own } = grpc();
    const check = (field: string, value: string) => grpcError(own.getUserFieldsCheck({ environmentId: env, filter: { field, value } }, bearer(me.jwt)));
    const taken = await check("email", them.email);
    expect(taken.code).toBe("FailedPrecondition");
    expect(await check("email", fresh("nobody"))).toEqual(taken);
    const takenPhone = await check("phoneNumber", them.phone);
    expect(takenPhone.code).toBe("FailedPrecondition");
    expect(await check("phoneNumber", freshNumber())).toEqual(takenPhone);
    expect((await own.getUserFieldsCheck({ environmentId: env, filter: { field: "email", value: me.email } }, bearer(me.jwt))).available).toBe(true);
  });
});

describe("PUT /users with a taken e-mail or phone answers as with a free one; the code decides", () => {
  it("REST: same status and shape, a code sent either way; redeeming the taken one is refused then", async () => {
    const t = await tenant();
    const env = t.environmentId;
    const them = await victim(t);
    const me = await signInAs(app, env);
    const shape = (r: Awaited<ReturnType<ReturnType<typeof sdk>["updateSelf"]>>) => ({
      nextView: r.nextView,
      keys: Object.keys(r).sort(),
      verification: Object.keys(r.emailVerification ?? r.smsVerification ?? {}).sort(),
      user: r.user.email,
    });
    const before = smtp.countTo(them.email);
    const taken = await sdk(me.jwt).updateSelf({ environmentId: env, userFields: { email: them.email.toUpperCase() } });
    const free = await sdk(me.jwt).updateSelf({ environmentId: env, userFields: { email: fresh("free") } });
    expect(shape(taken)).toEqual(shape(free));
    expect(taken.nextView).toBe(NextViewEnum.VerifyEmail);
    expect(taken.emailVerification?.email).toBe(them.email);
    const takenPhone = await sdk(me.jwt).updateSelf({ environmentId: env, userFields: { phoneNumber: them.phone } });
    const freePhone = await sdk(me.jwt).updateSelf({ environmentId: env, userFields: { phoneNumber: freshNumber() } });
    expect(shape(takenPhone)).toEqual(shape(freePhone));
    expect(takenPhone.nextView).toBe(NextViewEnum.VerifySms);

    // Only the mailbox's owner gets the code; whoever redeems it learns the address is taken, and nothing moves.
    const code = codeIn((await smtp.mailTo(them.email, before)).parsed.text ?? "");
    const redeemed = await refused(
      sdk(me.jwt).verifyEmailVerification({
        environmentId: env,
        emailVerificationVerifyRequest: { verificationUUID: taken.emailVerification!.verificationUUID, verificationToken: code },
      }),
    );
    expect([redeemed.status, redeemed.body.code]).toEqual([422, "credential_owned_by_another_user"]);
    expect((await app.db.one("SELECT email FROM users WHERE id = $1", [me.userId])).email).toBe(me.email);
  });

  it("gRPC: same answer for a taken and a free e-mail", async () => {
    const t = await tenant();
    const env = t.environmentId;
    const them = await victim(t);
    const me = await signInAs(app, env);
    const { own } = grpc();
    const taken = await own.updateSelf({ environmentId: env, email: them.email }, bearer(me.jwt));
    const free = await own.updateSelf({ environmentId: env, email: fresh("free") }, bearer(me.jwt));
    expect(taken.update?.nextView).toBe("verify-email");
    expect(free.update?.nextView).toBe("verify-email");
    expect(Object.keys(taken.update!.emailVerification!).sort()).toEqual(Object.keys(free.update!.emailVerification!).sort());
  });
});

describe("the e-mail provider answer depends on the environment, never on the address's user", () => {
  it("REST and gRPC: a wallet user's address answers as a stranger's", async () => {
    const t = await tenant();
    const env = t.environmentId;
    await manage(t, "POST", `/environments/${env}/settings/providers`, { provider: "magicLink" });
    const email = fresh("wallet-user");
    const { user } = await manage(t, "POST", `/environments/${env}/users`, { email });
    await manage(t, "POST", `/environments/${env}/users/${user.id}/wallets`, {
      publicWalletAddress: "0x52908400098527886E0F7030069857D2E4169EE7", chain: "EVM", walletName: "metamask", walletProvider: "browserExtension",
    });
    const known = await sdk().getEmailProvider({ environmentId: env, email });
    expect(await sdk().getEmailProvider({ environmentId: env, email: fresh("stranger") })).toEqual(known);
    const { settings } = grpc();
    const viaGrpc = await settings.getEmailProvider({ environmentId: env, email });
    expect(viaGrpc.emailProvider).toBe((await settings.getEmailProvider({ environmentId: env, email: fresh("stranger") })).emailProvider);
  });
});

describe("a quoted local part is not a new identifier", () => {
  const variants = (local: string, domain: string) => [`"${local}"@${domain}`, `${local}(note)@${domain}`, `"${local}\\x"@${domain}`, `${local}@${domain}.`, `${local}@[127.0.0.1]`];

  it("REST: refused with 400 validation_error naming the field, before the block list or the send budget are asked", async () => {
    const t = await tenant();
    const env = t.environmentId;
    const domain = `blocked-${randomUUID().slice(0, 8)}.example`;
    const list = await manage(t, "POST", `/environments/${env}/allowlists`, { name: "blocked", outcome: "block" });
    await manage(t, "POST", `/allowlists/${list.id}/entries`, { email: `banned@${domain}` });
    await manage(t, "PUT", `/allowlists/${list.id}/enable`);
    // The plain address gets its three codes a minute, and is refused at sign-in by the block list.
    const plain = `banned@${domain}`;
    for (let i = 0; i < 3; i++) await sdk().createEmailVerification({ environmentId: env, emailVerificationCreateRequest: { email: plain } });
    expect((await refused(sdk().createEmailVerification({ environmentId: env, emailVerificationCreateRequest: { email: plain.toUpperCase() } }))).status).toBe(429);
    const sent = smtp.mails.length;
    for (const email of variants("banned", domain)) {
      const r = await refused(sdk().createEmailVerification({ environmentId: env, emailVerificationCreateRequest: { email } }));
      expect([r.status, r.body.code], email).toEqual([400, "validation_error"]);
      expect(r.body.payload.errors[0].field).toBe("email");
    }
    // An allowlist entry cannot be written in a form sign-in would not compare equal either.
    const entry = await call(app.baseUrl, "POST", `/allowlists/${list.id}/entries`, { token: t.token, body: { email: `"banned"@${domain}` } });
    expect(entry.status).toBe(400);
    // One domain in Unicode or ASCII is one identifier: one send budget.
    const unicode = `user-${randomUUID().slice(0, 8)}@bücher.example`;
    for (let i = 0; i < 3; i++) await sdk().createEmailVerification({ environmentId: env, emailVerificationCreateRequest: { email: unicode } });
    const ascii = unicode.replace("bücher", "xn--bcher-kva");
    expect((await refused(sdk().createEmailVerification({ environmentId: env, emailVerificationCreateRequest: { email: ascii } }))).status).toBe(429);
    expect(smtp.mails.length).toBe(sent + 3);
  });

  it("gRPC: refused with InvalidArgument, nothing sent", async () => {
    const t = await tenant();
    const { codes } = grpc();
    const sent = smtp.mails.length;
    for (const email of variants("banned", "example.com")) {
      const r = await grpcError(codes.createEmailVerification({ environmentId: t.environmentId, email }));
      expect(r.code, email).toBe("InvalidArgument");
      expect(r.message).toContain("email");
    }
    expect(smtp.mails.length).toBe(sent);
  });
});

describe("wrong codes are capped per identifier and day, across every verification of it", () => {
  it("REST: rotating verifications reach the daily budget; then even the right code and new codes answer 429", async () => {
    const t = await tenant();
    const env = t.environmentId;
    const email = fresh("guessed");
    const first = await openVerification(env, email);
    for (let i = 0; i < 5; i++) expect((await refused(signIn(env, first.id, otherCode(first.code)))).body.code).toBe("invalid_verification_code");
    const second = await openVerification(env, email);
    for (let i = 5; i < FAILURES_PER_DAY; i++) expect((await refused(signIn(env, second.id, otherCode(second.code)))).body.code).toBe("invalid_verification_code");
    const spent = await refused(signIn(env, second.id, second.code));
    expect([spent.status, spent.body.code]).toEqual([429, "too_many_wrong_codes"]);
    const retryAfter = Number(spent.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(spent.body.payload).toEqual({
      scope: "identifier",
      limit: FAILURES_PER_DAY,
      window: "1d",
      setting: "SIGIL_CODE_FAILURES_PER_IDENTIFIER_PER_DAY",
      retryAfterSeconds: retryAfter,
    });
    const sent = smtp.countTo(email);
    const again = await refused(sdk().createEmailVerification({ environmentId: env, emailVerificationCreateRequest: { email } }));
    expect([again.status, again.body.code]).toEqual([429, "too_many_wrong_codes"]);
    expect(smtp.countTo(email)).toBe(sent);
    // Another identifier is not affected.
    const v = await openVerification(env, fresh("bystander"));
    expect((await signIn(env, v.id, v.code)).jwt).toBeTruthy();
  });

  it("gRPC: the same budget", async () => {
    const t = await tenant();
    const env = t.environmentId;
    const email = fresh("guessed-grpc");
    const { codes } = grpc();
    const redeem = (id: string, code: string) => grpcError(codes.signInWithEmailVerification({ environmentId: env, verificationUuid: id, verificationToken: code }));
    const first = await openVerification(env, email);
    for (let i = 0; i < 5; i++) expect((await redeem(first.id, otherCode(first.code))).code).toBe("FailedPrecondition");
    const second = await openVerification(env, email);
    for (let i = 5; i < FAILURES_PER_DAY; i++) expect((await redeem(second.id, otherCode(second.code))).code).toBe("FailedPrecondition");
    const spent = await redeem(second.id, second.code);
    expect(spent.code).toBe("ResourceExhausted");
    expect(spent.message).toContain("wrong codes");
  });
});

describe("the e-mail second factor shares the identifier's daily budget", () => {
  /**
   * A user of an MFA environment with TOTP and a second verified address (the e-mail factor), and a
   * session that signed in with the first address and still owes its second factor.
   */
  async function pendingWithEmailFactor() {
    const t = await app.bootstrap({ ownerEmail: fresh("enum-mfa-owner") });
    const env = t.environmentId;
    await manage(t, "PUT", `/environments/${env}`, { security: { mfa: { enabled: true, required: true } } });
    const first = await signInAs(app, env, fresh("mfa-first"));
    const pending = sdk(first.jwt);
    const reg = await pending.registerTotpMfaDevice({ environmentId: env });
    const phone = new AuthenticatorApp(reg.secret);
    await pending.registerTotpMfaDeviceVerify({ environmentId: env, mFARegisterTotpDevicePostRequest: { type: "totp" as never, code: phone.next() } });
    const full = await pending.authMfaTotpDevice({ environmentId: env, mFAAuthTotpDevicePostRequest: { code: phone.lastCode() } });
    const factor = fresh("mfa-factor");
    const link = await openVerification(env, factor);
    await sdk(full.jwt!).verifyEmailVerification({ environmentId: env, emailVerificationVerifyRequest: { verificationUUID: link.id, verificationToken: link.code } });
    const again = await openVerification(env, first.email);
    const s = await sdk().signInWithEmailVerification({ environmentId: env, emailVerificationVerifyRequest: { verificationUUID: again.id, verificationToken: again.code } });
    return { env, factor, jwt: s.jwt! };
  }

  it("REST: wrong codes by sign-in and by the factor add up; then the factor's right code answers 429", async () => {
    const { env, factor, jwt } = await pendingWithEmailFactor();
    const mine = await openVerification(env, factor);
    // A guesser elsewhere spends five wrong codes of the address by sign-in ...
    const guessed = await openVerification(env, factor);
    for (let i = 0; i < 5; i++) expect((await refused(signIn(env, guessed.id, otherCode(guessed.code)))).body.code).toBe("invalid_verification_code");
    // ... and the factor's own wrong codes count in the same budget.
    const factorWith = (code: string) => sdk(jwt).authenticateMfaEmail({ environmentId: env, emailVerificationMfaRequest: { verificationUUID: mine.id, verificationToken: code } });
    for (let i = 5; i < FAILURES_PER_DAY; i++) expect((await refused(factorWith(otherCode(mine.code)))).body.code).toBe("invalid_verification_code");
    const spent = await refused(factorWith(mine.code));
    expect([spent.status, spent.body.code]).toEqual([429, "too_many_wrong_codes"]);
    expect(Number(spent.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("gRPC: the same", async () => {
    const { env, factor, jwt } = await pendingWithEmailFactor();
    const mine = await openVerification(env, factor);
    const guessed = await openVerification(env, factor);
    const { codes, mfa } = grpc();
    for (let i = 0; i < 5; i++)
      expect((await grpcError(codes.signInWithEmailVerification({ environmentId: env, verificationUuid: guessed.id, verificationToken: otherCode(guessed.code) }))).code).toBe("FailedPrecondition");
    const factorWith = (code: string) => grpcError(mfa.authenticateMfaEmail({ environmentId: env, verificationUuid: mine.id, verificationToken: code }, bearer(jwt)));
    for (let i = 5; i < FAILURES_PER_DAY; i++) expect((await factorWith(otherCode(mine.code))).code).toBe("FailedPrecondition");
    expect((await factorWith(mine.code)).code).toBe("ResourceExhausted");
  });
});

describe("SMS sends are capped per environment, whatever the numbers", () => {
  const parts = (e164: string) => ({ phoneCountryCode: "1", phoneNumber: e164.slice(2), isoCountryCode: "US" });

  it("REST: many numbers reach the environment's hourly budget; then 429 with Retry-After and nothing sent; another environment is unaffected", async () => {
    const t = await tenant();
    const env = t.environmentId;
    for (let i = 0; i < SMS_PER_HOUR; i++) await sdk().createSmsVerification({ environmentId: env, smsVerificationCreateRequest: parts(freshNumber()) });
    const number = freshNumber();
    const pumped = await refused(sdk().createSmsVerification({ environmentId: env, smsVerificationCreateRequest: parts(number) }));
    expect([pumped.status, pumped.body.code]).toEqual([429, "sms_budget_exhausted"]);
    const retryAfter = Number(pumped.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(pumped.body.payload).toEqual({ scope: "environment", limit: SMS_PER_HOUR, window: "1h", setting: "SIGIL_SMS_PER_ENVIRONMENT_PER_HOUR", retryAfterSeconds: retryAfter });
    expect(pumped.body.error).toBe(`too many SMS codes sent by this environment: at most ${SMS_PER_HOUR} an hour (SIGIL_SMS_PER_ENVIRONMENT_PER_HOUR); retry in ${retryAfter} s`);
    // Nothing to wait for: the test is that no SMS reaches the number within this time.
    await new Promise((r) => setTimeout(r, 100));
    expect(smsPeer.countTo(number)).toBe(0);
    // A changed phone number on a profile is an SMS too.
    const me = await signInAs(app, env);
    const viaProfile = await refused(sdk(me.jwt).updateSelf({ environmentId: env, userFields: { phoneNumber: freshNumber() } }));
    expect(viaProfile.body.code).toBe("sms_budget_exhausted");
    const other = await tenant();
    await sdk().createSmsVerification({ environmentId: other.environmentId, smsVerificationCreateRequest: parts(freshNumber()) });
  });

  it("gRPC: the same budget", async () => {
    const t = await tenant();
    const { codes } = grpc();
    for (let i = 0; i < SMS_PER_HOUR; i++) await codes.createSmsVerification({ environmentId: t.environmentId, ...parts(freshNumber()) });
    const pumped = await grpcError(codes.createSmsVerification({ environmentId: t.environmentId, ...parts(freshNumber()) }));
    expect(pumped.code).toBe("ResourceExhausted");
    expect(pumped.message).toContain("SMS");
  });
});
