import { randomUUID } from "node:crypto";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_VERIFICATION_SETTINGS } from "../../src/config.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkMfaService } from "../../src/gen/sigil/mfa/v0/mfa_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";
import { codeIn, startSmtpPeer } from "./support/code-peers.js";
import { AuthenticatorApp } from "../support/totp-app.js";

/**
 * MFA through the published client (SDKApi, unchanged): TOTP enrolment and authentication, recovery codes,
 * the e-mail factor, the device list, and the attacks (replayed and concurrent codes, brute force, another
 * environment's token, a first factor trying to mint a second). Codes come from a real TOTP implementation
 * in the test (the authenticator app) and from a real SMTP server on loopback.
 */

let app: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let t: BootstrapResult;
let other: BootstrapResult;

beforeAll(async () => {
  smtp = await startSmtpPeer();
  app = await startTestApp({ verifications: { ...DEFAULT_VERIFICATION_SETTINGS, smtpUrl: smtp.url, mailFrom: "Acme <codes@acme.example>" } });
  t = await tenantWithMfa({ enabled: true, required: true });
  const named = await call(app.baseUrl, "PUT", `/environments/${t.environmentId}`, { token: t.token, body: { general: { displayName: "Acme Wallet" } } });
  expect(named.status, named.text).toBe(200);
  other = await tenantWithMfa({ enabled: true, required: true });
}, 60_000);
afterAll(async () => {
  await app?.stop();
  await smtp?.close();
});

async function tenantWithMfa(mfa: Record<string, unknown>): Promise<BootstrapResult> {
  const tenant = await app.bootstrap({ ownerEmail: `mfa-${randomUUID()}@example.com` });
  const res = await call(app.baseUrl, "PUT", `/environments/${tenant.environmentId}`, { token: tenant.token, body: { security: { mfa } } });
  expect(res.status, res.text).toBe(200);
  return tenant;
}

const scopeOf = (jwt: string) => decodeJwt(jwt).scope;

/** An e-mail code as the client gets one: created through the SDK, read from the SMTP server. */
async function emailCode(email: string, environmentId = t.environmentId) {
  const before = smtp.countTo(email);
  const created = await sdkFor(app.baseUrl).createEmailVerification({ environmentId, emailVerificationCreateRequest: { email } });
  const mail = await smtp.mailTo(email, before);
  return { verificationUUID: created.verificationUUID, code: codeIn(mail.parsed.text ?? "") };
}

/** Signs in with an e-mail code through the published client (the first factor). */
async function signInByEmail(email: string, environmentId = t.environmentId) {
  const { verificationUUID, code } = await emailCode(email, environmentId);
  const r = await sdkFor(app.baseUrl).signInWithEmailVerification({ environmentId, emailVerificationVerifyRequest: { verificationUUID, verificationToken: code } });
  return { jwt: r.jwt!, userId: r.user.id! };
}

/** A user of `t` with a verified TOTP device, whose session has passed it (full scope). */
async function enrolled(email = `enrolled-${randomUUID()}@example.com`) {
  const first = await signInAs(app, t.environmentId, email);
  const pending = sdkFor(app.baseUrl, first.jwt);
  const reg = await pending.registerTotpMfaDevice({ environmentId: t.environmentId });
  const phone = new AuthenticatorApp(reg.secret);
  await pending.registerTotpMfaDeviceVerify({ environmentId: t.environmentId, mFARegisterTotpDevicePostRequest: { type: "totp" as never, code: phone.next() } });
  const passed = await pending.authMfaTotpDevice({ environmentId: t.environmentId, mFAAuthTotpDevicePostRequest: { code: phone.lastCode() } });
  return { email, userId: first.userId, sessionId: first.sessionId, deviceId: reg.id, phone, jwt: passed.jwt!, client: sdkFor(app.baseUrl, passed.jwt!) };
}

const eventsOf = async (name: string, userId: string) =>
  app.db.any("SELECT data FROM events WHERE environment_id = $1 AND event_name = $2 AND data::text LIKE $3", [t.environmentId, name, `%${userId}%`]);

describe("TOTP, the whole flow through the published client", () => {
  it("a first factor is refused elsewhere, enrols TOTP, verifies it, and the code upgrades the same session", async () => {
    const email = `totp-${randomUUID()}@example.com`;
    const s = await signInByEmail(email);
    expect(scopeOf(s.jwt)).toBe("requiresAdditionalAuth");
    const pending = sdkFor(app.baseUrl, s.jwt);
    const env = t.environmentId;

    const me = await refused(pending.getAuthenticatedUser({ environmentId: env }));
    expect(me.status).toBe(403);
    expect(me.body).toMatchObject({ code: "mfa_required" });
    expect(await pending.getUserMfaMethods({ environmentId: env })).toEqual({ devices: [], passkeys: [], userHasVerifiedMfaMethods: false });
    expect(await pending.getUserMfaDevices({ environmentId: env })).toEqual({ count: 0, devices: [] });

    const reg = await pending.registerTotpMfaDevice({ environmentId: env });
    expect(reg).toMatchObject({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), type: "totp", secret: expect.stringMatching(/^[A-Z2-7]{32}$/) });
    const uri = new URL(reg.uri);
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.searchParams.get("secret")).toBe(reg.secret);
    expect(uri.searchParams.get("digits")).toBe("6");
    expect(decodeURIComponent(uri.pathname)).toContain(email);
    // The app is named as the environment names itself (general.displayName), else "Sigil".
    expect(uri.searchParams.get("issuer")).toBe("Acme Wallet");
    // Sealed at rest: the row does not hold the secret.
    const row = await app.db.one("SELECT totp_secret_sealed, verified_at FROM user_mfa_devices WHERE id = $1", [reg.id]);
    expect(row.totp_secret_sealed).toMatch(/^v1\./);
    expect(row.totp_secret_sealed).not.toContain(reg.secret);
    expect(row.verified_at).toBeNull();

    const phone = new AuthenticatorApp(reg.secret);
    const wrong = await refused(
      pending.registerTotpMfaDeviceVerify({ environmentId: env, mFARegisterTotpDevicePostRequest: { type: "totp" as never, code: phone.codeAt(AuthenticatorApp.step() + 5) } }),
    );
    expect(wrong.status).toBe(422);
    expect(wrong.body).toMatchObject({ code: "invalid_mfa_code" });
    const device = await pending.registerTotpMfaDeviceVerify({ environmentId: env, mFARegisterTotpDevicePostRequest: { type: "totp" as never, code: phone.next() } });
    expect(device).toMatchObject({ id: reg.id, type: "totp", verified: true, _default: true });
    // Verifying enrols; it does not pass the factor: the session still waits for it.
    expect((await refused(pending.getAuthenticatedUser({ environmentId: env }))).status).toBe(403);

    // The enrolment's code passes the factor once: the same session, full scope.
    const passed = await pending.authMfaTotpDevice({ environmentId: env, mFAAuthTotpDevicePostRequest: { code: phone.lastCode() } });
    expect(scopeOf(passed.jwt!)).toBe("user:basic");
    expect(decodeJwt(passed.jwt!).sid).toBe(decodeJwt(s.jwt).sid);
    expect(passed.mfaToken).toBeUndefined();
    const full = sdkFor(app.baseUrl, passed.jwt!);
    expect((await full.getAuthenticatedUser({ environmentId: env })).id).toBe(s.userId);
    expect((await full.getUserMfaMethods({ environmentId: env })).userHasVerifiedMfaMethods).toBe(true);

    // Replayed in the same window: refused.
    const replay = await refused(full.authMfaTotpDevice({ environmentId: env, mFAAuthTotpDevicePostRequest: { code: phone.lastCode() } }));
    expect(replay.status).toBe(422);
    expect(replay.body).toMatchObject({ code: "mfa_code_already_used" });

    // The next sign-in owes the factor again and passes it with the next code, naming the device.
    const again = await signInByEmail(email);
    expect(scopeOf(again.jwt)).toBe("requiresAdditionalAuth");
    const second = await sdkFor(app.baseUrl, again.jwt).authMfaTotpDevice({
      environmentId: env,
      mFAAuthTotpDevicePostRequest: { id: reg.id, code: phone.next(), createMfaToken: { singleUse: true } },
    });
    expect(scopeOf(second.jwt!)).toBe("user:basic");
    expect(second.mfaToken).toMatch(/^mfa_/);

    // Audit trail and events.
    expect(await eventsOf("user.mfa_device.created", s.userId)).toHaveLength(1);
    expect(await eventsOf("user.mfa_device.verified", s.userId)).toHaveLength(1);
    expect(await eventsOf("user.mfa.passed", s.userId)).toHaveLength(2);
    const audit = await app.db.any("SELECT action FROM audit_log WHERE environment_id = $1 AND resource_id = $2", [env, reg.id]);
    expect(audit.map((a) => a.action).sort()).toEqual(["user.mfa_device.created", "user.mfa_device.verified"]);
  });

  it("two concurrent requests with one code: exactly one passes", async () => {
    const u = await enrolled();
    const s = await signInAs(app, t.environmentId, u.email);
    const code = u.phone.next();
    const tries = await Promise.allSettled(
      Array.from({ length: 4 }, () => sdkFor(app.baseUrl, s.jwt).authMfaTotpDevice({ environmentId: t.environmentId, mFAAuthTotpDevicePostRequest: { code } })),
    );
    expect(tries.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of tries.filter((r) => r.status === "rejected")) expect(((r as PromiseRejectedResult).reason as Response).status).toBe(422);
  });

  it("five wrong codes lock the factor (429 + Retry-After), even for the right code, with a growing delay", async () => {
    const u = await enrolled();
    const s = await signInAs(app, t.environmentId, u.email);
    const client = sdkFor(app.baseUrl, s.jwt);
    const attempt = (code: string) => refused(client.authMfaTotpDevice({ environmentId: t.environmentId, mFAAuthTotpDevicePostRequest: { code } }));
    const bad = u.phone.codeAt(AuthenticatorApp.step() + 7);
    for (let i = 0; i < 5; i++) expect((await attempt(bad)).status).toBe(422);
    const locked = await attempt(u.phone.next());
    expect(locked.status).toBe(429);
    // A fixed bound (no setting changes it): the payload names it, without a setting.
    expect(locked.body).toMatchObject({ code: "factor_locked", payload: { scope: "factor", limit: 5, window: "1h", retryAfterSeconds: 60 } });
    expect(locked.body.payload.setting).toBeUndefined();
    expect(locked.body.error).toBe("too many wrong totp answers: at most 5 an hour, then the factor is locked; retry in 60 s");
    expect(Number(locked.headers.get("retry-after"))).toBe(60);
    // The lock runs out (as if a minute passed); five more wrong codes lock it for twice as long.
    await app.store.del(`mfa:guard:${t.environmentId}:${u.userId}:totp:lock`);
    for (let i = 0; i < 5; i++) expect((await attempt(bad)).status).toBe(422);
    const longer = await attempt(u.phone.lastCode());
    expect(longer.status).toBe(429);
    expect(Number(longer.headers.get("retry-after"))).toBe(120);
    // Still waiting for its factor: nothing passed.
    expect((await refused(client.getAuthenticatedUser({ environmentId: t.environmentId }))).status).toBe(403);
  });

  it("a first factor alone cannot enrol a second device, read recovery codes or change devices", async () => {
    const u = await enrolled();
    const s = await signInAs(app, t.environmentId, u.email);
    const pending = sdkFor(app.baseUrl, s.jwt);
    const env = t.environmentId;
    const reg = await refused(pending.registerTotpMfaDevice({ environmentId: env }));
    expect(reg.status).toBe(403);
    expect(reg.body).toMatchObject({ code: "mfa_required" });
    for (const p of [
      () => pending.getRecoveryCodes({ environmentId: env }),
      () => pending.createNewRecoveryCodes({ environmentId: env }),
      () => pending.getMfaDevice({ environmentId: env, mfaDeviceId: u.deviceId }),
      () => pending.updateUserMfaDevice({ environmentId: env, mfaDeviceId: u.deviceId, mFAUpdateDeviceRequest: { _default: true } }),
      () => pending.deleteMfaDevice({ environmentId: env, mfaDeviceId: u.deviceId, xMfaAuthToken: "x" }),
    ]) {
      const r = await refused(p());
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ code: "mfa_required" });
    }
    expect(await app.db.one("SELECT count(*)::int AS n FROM user_mfa_devices WHERE user_id = $1", [u.userId])).toEqual({ n: 1 });
  });
});

describe("recovery codes", () => {
  it("are shown once, pass the factor once each, and a new set replaces the old one", async () => {
    const u = await enrolled();
    const env = t.environmentId;
    const shown = await u.client.getRecoveryCodes({ environmentId: env });
    expect(shown.count).toBe(10);
    expect(new Set(shown.recoveryCodes).size).toBe(10);
    for (const c of shown.recoveryCodes) expect(c).toMatch(/^[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}$/);
    const again = await refused(u.client.getRecoveryCodes({ environmentId: env }));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: "recovery_codes_already_shown" });
    // Only hashes at rest.
    const stored = await app.db.any("SELECT code_hash FROM user_mfa_recovery_codes WHERE user_id = $1", [u.userId]);
    expect(stored).toHaveLength(10);
    expect(JSON.stringify(stored)).not.toContain(shown.recoveryCodes[0]!.replace(/-/g, ""));

    // A new sign-in passes with a recovery code (typed loosely), which is then spent.
    const s1 = await signInAs(app, env, u.email);
    const code = shown.recoveryCodes[0]!;
    const passed = await sdkFor(app.baseUrl, s1.jwt).authMfaRecovery({ environmentId: env, mFAAuthRecoveryDevicePostRequest: { code: code.toLowerCase().replace(/-/g, " ") } });
    expect(scopeOf(passed.jwt!)).toBe("user:basic");
    const s2 = await signInAs(app, env, u.email);
    const spent = await refused(sdkFor(app.baseUrl, s2.jwt).authMfaRecovery({ environmentId: env, mFAAuthRecoveryDevicePostRequest: { code } }));
    expect(spent.status).toBe(422);
    expect(spent.body).toMatchObject({ code: "invalid_recovery_code" });

    // Two concurrent uses of one code: exactly one passes.
    const s3 = await signInAs(app, env, u.email);
    const tries = await Promise.allSettled(
      [0, 1, 2].map(() => sdkFor(app.baseUrl, s3.jwt).authMfaRecovery({ environmentId: env, mFAAuthRecoveryDevicePostRequest: { code: shown.recoveryCodes[1]! } })),
    );
    expect(tries.filter((r) => r.status === "fulfilled")).toHaveLength(1);

    // New codes: all old ones stop working, a new one works.
    const renewed = await u.client.createNewRecoveryCodes({ environmentId: env });
    expect(renewed.count).toBe(10);
    const s4 = await signInAs(app, env, u.email);
    expect((await refused(sdkFor(app.baseUrl, s4.jwt).authMfaRecovery({ environmentId: env, mFAAuthRecoveryDevicePostRequest: { code: shown.recoveryCodes[2]! } }))).status).toBe(422);
    const ok = await sdkFor(app.baseUrl, s4.jwt).authMfaRecovery({ environmentId: env, mFAAuthRecoveryDevicePostRequest: { code: renewed.recoveryCodes[0]! } });
    expect(scopeOf(ok.jwt!)).toBe("user:basic");
    expect(await eventsOf("user.mfa.recovery_codes_created", u.userId)).toHaveLength(2);
  });

  it("wait for the user to confirm keeping them (mfaBackupCodeAcknowledgement), again after every new set", async () => {
    const u = await enrolled();
    const env = t.environmentId;
    const ack = async () => (await u.client.getAuthenticatedUser({ environmentId: env })).mfaBackupCodeAcknowledgement;
    expect(await ack()).toBeUndefined();
    await u.client.getRecoveryCodes({ environmentId: env });
    expect(await ack()).toBe("pending");
    await u.client.updateSelf({ environmentId: env, userFields: { mfaBackupCodeAcknowledgement: "complete" as never } });
    expect(await ack()).toBe("complete");
    const audited = await app.db.any("SELECT 1 FROM audit_log WHERE action = 'user.mfa.recovery_codes_acknowledged' AND resource_id = $1", [u.userId]);
    expect(audited).toHaveLength(1);
    await u.client.createNewRecoveryCodes({ environmentId: env });
    expect(await ack()).toBe("pending");
    // Only "complete" is something a user can say.
    const bad = await refused(u.client.updateSelf({ environmentId: env, userFields: { mfaBackupCodeAcknowledgement: "pending" as never } }));
    expect(bad.status).toBe(400);
    expect(await ack()).toBe("pending");
  });

  it("go with the devices when an operator resets the user's MFA", async () => {
    const u = await enrolled();
    const env = t.environmentId;
    const shown = await u.client.getRecoveryCodes({ environmentId: env });
    const reset = await call(app.baseUrl, "POST", `/users/${u.userId}/mfa/reset`, { token: t.token });
    expect(reset.status, reset.text).toBeLessThan(300);
    expect(await app.db.any("SELECT 1 FROM user_mfa_recovery_codes WHERE user_id = $1", [u.userId])).toHaveLength(0);
    expect((await app.db.one("SELECT mfa_backup_code_acknowledgement AS a FROM users WHERE id = $1", [u.userId])).a).toBeNull();
    // MFA is required here: the next sign-in still owes a factor, and an old code no longer passes it.
    const s = await signInAs(app, env, u.email);
    const old = await refused(sdkFor(app.baseUrl, s.jwt).authMfaRecovery({ environmentId: env, mFAAuthRecoveryDevicePostRequest: { code: shown.recoveryCodes[0]! } }));
    expect(old.status).toBe(422);
    expect(scopeOf(s.jwt)).toBe("requiresAdditionalAuth");
  });

  it("need a verified device first", async () => {
    const t2 = await tenantWithMfa({ enabled: true, required: false });
    const s = await signInAs(app, t2.environmentId);
    const r = await refused(sdkFor(app.baseUrl, s.jwt).getRecoveryCodes({ environmentId: t2.environmentId }));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "mfa_device_required" });
  });
});

describe("the e-mail factor", () => {
  it("a code sent to the user's verified address passes; one sent elsewhere, a wrong one, or to the address the session signed in with does not", async () => {
    const email = `mail-factor-${randomUUID()}@example.com`;
    const env = t.environmentId;
    // Two verified addresses: the first signs in, the second is the factor.
    const u = await enrolled(`mail-first-${randomUUID()}@example.com`);
    const link = await emailCode(email);
    await u.client.verifyEmailVerification({ environmentId: env, emailVerificationVerifyRequest: { verificationUUID: link.verificationUUID, verificationToken: link.code } });
    const s = await signInByEmail(u.email);
    const pending = sdkFor(app.baseUrl, s.jwt);
    const signedInWith = await emailCode(u.email);
    const repeat = await refused(
      pending.authenticateMfaEmail({ environmentId: env, emailVerificationMfaRequest: { verificationUUID: signedInWith.verificationUUID, verificationToken: signedInWith.code } }),
    );
    expect(repeat.status).toBe(422);
    expect(repeat.body).toMatchObject({ code: "email_factor_is_first_factor" });

    const elsewhere = await emailCode(`someone-else-${randomUUID()}@example.com`);
    const foreign = await refused(
      pending.authenticateMfaEmail({ environmentId: env, emailVerificationMfaRequest: { verificationUUID: elsewhere.verificationUUID, verificationToken: elsewhere.code } }),
    );
    expect(foreign.status).toBe(422);
    expect(foreign.body).toMatchObject({ code: "email_not_verified_for_user" });

    const mine = await emailCode(email);
    const wrongCode = String((Number(mine.code) + 1) % 1_000_000).padStart(6, "0");
    const wrong = await refused(
      pending.authenticateMfaEmail({ environmentId: env, emailVerificationMfaRequest: { verificationUUID: mine.verificationUUID, verificationToken: wrongCode } }),
    );
    expect(wrong.status).toBe(422);
    expect(wrong.body).toMatchObject({ code: "invalid_verification_code" });
    const passed = await pending.authenticateMfaEmail({
      environmentId: env,
      emailVerificationMfaRequest: { verificationUUID: mine.verificationUUID, verificationToken: mine.code, createMfaToken: { singleUse: false } },
    });
    expect(scopeOf(passed.jwt!)).toBe("user:basic");
    expect(passed.mfaToken).toMatch(/^mfa_/);
    // The code is spent.
    const replay = await refused(
      pending.authenticateMfaEmail({ environmentId: env, emailVerificationMfaRequest: { verificationUUID: mine.verificationUUID, verificationToken: mine.code } }),
    );
    expect(replay.status).toBe(404);
  });
});

describe("devices", () => {
  it("get, make another the default, delete (never the default, and only on a fresh factor)", async () => {
    const u = await enrolled();
    const env = t.environmentId;
    // A second TOTP device, enrolled from the full session.
    const reg = await u.client.registerTotpMfaDevice({ environmentId: env });
    const phone2 = new AuthenticatorApp(reg.secret);
    const second = await u.client.registerTotpMfaDeviceVerify({ environmentId: env, mFARegisterTotpDevicePostRequest: { type: "totp" as never, code: phone2.next() } });
    expect(second).toMatchObject({ verified: true, _default: false });
    const list = await u.client.getUserMfaDevices({ environmentId: env });
    expect(list.count).toBe(2);
    expect(list.devices.map((d) => [d.id, d._default])).toEqual([
      [u.deviceId, true],
      [reg.id, false],
    ]);
    expect(await u.client.getMfaDevice({ environmentId: env, mfaDeviceId: reg.id })).toEqual(list.devices[1]);

    // A fresh factor for the deletions: an mfaToken of this session.
    const step = await u.client.authMfaTotpDevice({ environmentId: env, mFAAuthTotpDevicePostRequest: { code: u.phone.next(), createMfaToken: { singleUse: true } } });
    const client = sdkFor(app.baseUrl, step.jwt!);
    const def = await refused(client.deleteMfaDevice({ environmentId: env, mfaDeviceId: u.deviceId, xMfaAuthToken: step.mfaToken! }));
    expect(def.status).toBe(422);
    expect(def.body).toMatchObject({ code: "default_mfa_device" });
    const noToken = await refused(client.deleteMfaDevice({ environmentId: env, mfaDeviceId: reg.id, xMfaAuthToken: "mfa_forged" }));
    expect(noToken.status).toBe(403);
    expect(noToken.body).toMatchObject({ code: "invalid_mfa_token" });
    const undefault = await refused(client.updateUserMfaDevice({ environmentId: env, mfaDeviceId: u.deviceId, mFAUpdateDeviceRequest: { _default: false } }));
    expect(undefault.status).toBe(422);

    await client.updateUserMfaDevice({ environmentId: env, mfaDeviceId: reg.id, mFAUpdateDeviceRequest: { _default: true } });
    expect((await client.getUserMfaDevices({ environmentId: env })).devices.map((d) => d._default)).toEqual([false, true]);
    await client.deleteMfaDevice({ environmentId: env, mfaDeviceId: u.deviceId, xMfaAuthToken: step.mfaToken! });
    expect((await client.getUserMfaDevices({ environmentId: env })).devices.map((d) => d.id)).toEqual([reg.id]);
    // The single-use token is spent.
    const reg3 = await client.registerTotpMfaDevice({ environmentId: env });
    const spent = await refused(client.deleteMfaDevice({ environmentId: env, mfaDeviceId: reg3.id, xMfaAuthToken: step.mfaToken! }));
    expect(spent.status).toBe(403);
    // The unfinished enrolment is listed, but not among the verified methods.
    expect((await client.getUserMfaMethods({ environmentId: env })).devices.map((d) => d.id)).toEqual([reg.id, reg3.id]);
    expect((await client.getUserMfaMethods({ environmentId: env, verifiedOnly: true })).devices.map((d) => d.id)).toEqual([reg.id]);
    expect(await eventsOf("user.mfa_device.updated", u.userId)).toHaveLength(1);
    expect(await eventsOf("user.mfa_device.deleted", u.userId)).toHaveLength(1);
    // Unknown ids: 404.
    expect((await refused(client.getMfaDevice({ environmentId: env, mfaDeviceId: randomUUID() }))).status).toBe(404);
  });

  it("another user's device is not found; another environment's token is refused", async () => {
    const a = await enrolled();
    const b = await enrolled();
    expect((await refused(b.client.getMfaDevice({ environmentId: t.environmentId, mfaDeviceId: a.deviceId }))).status).toBe(404);
    const upd = await refused(b.client.updateUserMfaDevice({ environmentId: t.environmentId, mfaDeviceId: a.deviceId, mFAUpdateDeviceRequest: { _default: true } }));
    expect(upd.status).toBe(404);
    // A session of another environment, on this environment's paths.
    const foreign = await signInAs(app, other.environmentId);
    const fc = sdkFor(app.baseUrl, foreign.jwt);
    expect((await refused(fc.getUserMfaDevices({ environmentId: t.environmentId }))).status).toBe(401);
    expect((await refused(fc.authMfaTotpDevice({ environmentId: t.environmentId, mFAAuthTotpDevicePostRequest: { code: a.phone.next() } }))).status).toBe(401);
  });

  it("a method the environment does not offer is refused", async () => {
    const t3 = await tenantWithMfa({ enabled: true, required: true, methods: [{ type: "email", enabled: true }] });
    const s = await signInAs(app, t3.environmentId);
    const r = await refused(sdkFor(app.baseUrl, s.jwt).registerTotpMfaDevice({ environmentId: t3.environmentId }));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "mfa_method_not_enabled" });
  });
});

describe("over gRPC", () => {
  it("lists and authenticates with the JWT in the metadata", async () => {
    const u = await enrolled();
    const s = await signInAs(app, t.environmentId, u.email);
    const client = createClient(SdkMfaService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const headers = { authorization: `Bearer ${s.jwt}` };
    const list = await client.getUserMfaDevices({ environmentId: t.environmentId }, { headers });
    expect(list.devices.map((d) => d.id)).toEqual([u.deviceId]);
    const bad = await client.authMfaTotpDevice({ environmentId: t.environmentId, code: "12345" }, { headers }).catch((e) => ConnectError.from(e));
    expect((bad as ConnectError).code).toBe(Code.FailedPrecondition);
    const ok = await client.authMfaTotpDevice({ environmentId: t.environmentId, code: u.phone.next() }, { headers });
    expect(decodeJwt(ok.signIn!.jwt).scope).toBe("user:basic");
  });
});
