import { randomUUID } from "node:crypto";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { Configuration, SDKApi, type PasskeyAuthRequest, type PasskeyRegisterRequest } from "@dynamic-labs/sdk-api";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkPasskeysService } from "../../src/gen/sigil/passkeys/v0/passkeys_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";
import { SoftwareAuthenticator, type Assertion, type Attestation } from "../support/webauthn-authenticator.js";

/**
 * Passkeys through the published client, with a software authenticator playing the browser: a signed-in
 * user registers passkeys and signs in with them, lists, renames and removes them; passkeys as MFA
 * devices. The server side is @simplewebauthn/server; the attacks are made as an attacker would.
 */
const ORIGIN = "https://app.example.com";
let app: TestApp;
let t: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  t = await tenant();
});
afterAll(async () => {
  await app?.stop();
});

/** A tenant whose environment admits pages on ORIGIN (and `settings`, e.g. MFA). */
async function tenant(settings?: Record<string, unknown>): Promise<BootstrapResult> {
  const x = await app.bootstrap({ ownerEmail: `passkeys-${randomUUID()}@example.com` });
  const o = await call(app.baseUrl, "POST", `/environments/${x.environmentId}/origins`, { token: x.token, body: { origin: ORIGIN } });
  expect(o.status, o.text).toBeLessThan(300);
  if (settings) {
    const s = await call(app.baseUrl, "PUT", `/environments/${x.environmentId}`, { token: x.token, body: settings });
    expect(s.status, s.text).toBe(200);
  }
  return x;
}

/** The published client as a page on `origin` calls it (null: no Origin header, as a non-browser caller). */
function sdk(jwt?: string, origin: string | null = ORIGIN): SDKApi {
  const headers: Record<string, string> = {};
  if (origin) headers.Origin = origin;
  if (jwt) headers.Authorization = `Bearer ${jwt}`;
  return new SDKApi(new Configuration({ basePath: `${app.baseUrl}/api/v0`, accessToken: jwt, headers }));
}

/** navigator.credentials.create()'s answer in the client's PasskeyRegisterRequest (it spells clientDataJson). */
const registerRequest = (a: Attestation): PasskeyRegisterRequest =>
  ({
    id: a.id,
    rawId: a.rawId,
    type: a.type,
    authenticatorAttachment: a.authenticatorAttachment,
    clientExtensionResults: {},
    response: { attestationObject: a.response.attestationObject, clientDataJson: a.response.clientDataJSON, transports: a.response.transports },
  }) as never;

const authRequest = (a: Assertion, extra: Partial<PasskeyAuthRequest> = {}): PasskeyAuthRequest => ({ ...a, ...extra }) as unknown as PasskeyAuthRequest;

/** A signed-in user (by e-mail) with a new passkey on `auth`; the session's tokens after it. */
async function userWithPasskey(x: BootstrapResult, auth: SoftwareAuthenticator, format: "none" | "packed" = "none") {
  const s = await signInAs(app, x.environmentId);
  const options = await sdk(s.jwt).getPasskeyRegistrationOptions({ environmentId: x.environmentId });
  const r = await sdk(s.jwt).registerPasskey({ environmentId: x.environmentId, passkeyRegisterRequest: registerRequest(auth.create(options, ORIGIN, { format })) });
  return { ...s, jwt: r.jwt! };
}

async function signInOptions(x: BootstrapResult) {
  return sdk().getPasskeyAuthenticationSigninOptions({ environmentId: x.environmentId });
}

async function signInWith(x: BootstrapResult, assertion: Assertion) {
  return sdk().signinWithPasskey({ environmentId: x.environmentId, passkeyAuthRequest: authRequest(assertion) });
}

const eventsOf = (environmentId: string, userId: string) =>
  app.db.map("SELECT event_name FROM events WHERE environment_id = $1 AND user_id = $2 ORDER BY created_at, id", [environmentId, userId], (r) => r.event_name);

describe("a passkey as a way to sign in", () => {
  it("is registered by the signed-in user, signs them in, is listed, renamed and removed", async () => {
    const auth = new SoftwareAuthenticator();
    const s = await signInAs(app, t.environmentId);
    const options = await sdk(s.jwt).getPasskeyRegistrationOptions({ environmentId: t.environmentId });
    expect(options).toMatchObject({
      rp: { id: "app.example.com" },
      attestation: "none",
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
      excludeCredentials: [],
      user: { name: s.email },
    });
    expect(options.pubKeyCredParams.map((p) => p.alg)).toContain(-7);
    const attestation = auth.create(options, ORIGIN);
    const registered = await sdk(s.jwt).registerPasskey({ environmentId: t.environmentId, passkeyRegisterRequest: registerRequest(attestation) });
    expect(registered.user.id).toBe(s.userId);
    expect(decodeJwt(registered.jwt!).sid).toBe(s.sessionId);

    // The same authenticator is excluded from a second registration.
    const again = await sdk(s.jwt).getPasskeyRegistrationOptions({ environmentId: t.environmentId });
    expect(again.excludeCredentials.map((c) => c.id)).toEqual([attestation.id]);

    const o = await signInOptions(t);
    expect(o).toMatchObject({ rpId: "app.example.com", userVerification: "required", allowCredentials: [] });
    const signedIn = await signInWith(t, auth.get(o, ORIGIN));
    expect(signedIn.user.id).toBe(s.userId);
    expect(signedIn.user.newUser).toBe(false);
    expect(decodeJwt(signedIn.jwt!).sid).not.toBe(s.sessionId);

    const list = await sdk(s.jwt).getUserPasskeys({ environmentId: t.environmentId });
    expect(list.count).toBe(1);
    expect(list.passkeys[0]).toMatchObject({ credentialId: attestation.id, origin: ORIGIN });
    const id = list.passkeys[0].id;
    const stored = await app.db.one("SELECT sign_count, transports, aaguid, attestation_format, backed_up FROM user_passkeys WHERE id = $1", [id]);
    expect(stored).toMatchObject({ sign_count: 1, transports: ["internal", "hybrid"], attestation_format: "none", backed_up: false });

    const renamed = await sdk(s.jwt).updatePasskey({ environmentId: t.environmentId, updateUserPasskeyRequest: { id, alias: "Laptop" } });
    expect(renamed).toMatchObject({ id, alias: "Laptop" });
    expect(renamed.updatedAt).toBeInstanceOf(Date);
    expect((await sdk(s.jwt).getUserPasskeys({ environmentId: t.environmentId })).passkeys[0].alias).toBe("Laptop");

    const del = await sdk(s.jwt).deletePasskeyRaw({ environmentId: t.environmentId, deleteUserPasskeyRequest: { passkeyId: id } });
    expect(del.raw.status).toBe(204);
    expect((await sdk(s.jwt).getUserPasskeys({ environmentId: t.environmentId })).count).toBe(0);
    const gone = await refused(signInWith(t, auth.get(await signInOptions(t), ORIGIN)));
    expect(gone).toMatchObject({ status: 422, body: { code: "unknown_passkey" } });

    expect(await eventsOf(t.environmentId, s.userId)).toEqual(
      expect.arrayContaining(["user.passkey.created", "user.passkey.updated", "user.passkey.deleted", "user.session.created"]),
    );
  });

  it("signs in nobody once its user is deleted (by the management API or by themselves)", async () => {
    const auth = new SoftwareAuthenticator();
    const u = await userWithPasskey(t, auth);
    const del = await call(app.baseUrl, "DELETE", `/environments/${t.environmentId}/users/${u.userId}`, { token: t.token });
    expect(del.status, del.text).toBeLessThan(300);
    const r = await refused(signInWith(t, auth.get(await signInOptions(t), ORIGIN)));
    expect(r).toMatchObject({ status: 401, body: { code: "invalid_credential" } });

    const self = new SoftwareAuthenticator();
    const v = await userWithPasskey(t, self);
    await sdk(v.jwt).hardDeleteUser({ environmentId: t.environmentId });
    expect(await refused(signInWith(t, self.get(await signInOptions(t), ORIGIN)))).toMatchObject({ status: 422, body: { code: "unknown_passkey" } });
  });

  it("accepts packed self attestation, and refuses registration without user verification", async () => {
    const auth = new SoftwareAuthenticator(Buffer.from("0123456789abcdef"));
    const u = await userWithPasskey(t, auth, "packed");
    const row = await app.db.one("SELECT attestation_format, aaguid FROM user_passkeys WHERE user_id = $1", [u.userId]);
    expect(row).toMatchObject({ attestation_format: "packed", aaguid: "30313233-3435-3637-3839-616263646566" });

    const options = await sdk(u.jwt).getPasskeyRegistrationOptions({ environmentId: t.environmentId });
    const noUv = auth.create(options, ORIGIN, { userVerified: false });
    const r = await refused(sdk(u.jwt).registerPasskey({ environmentId: t.environmentId, passkeyRegisterRequest: registerRequest(noUv) }));
    expect(r).toMatchObject({ status: 422, body: { code: "invalid_passkey" } });
  });

  it("needs a page of one of the environment's origins, and a signed-in user to register", async () => {
    const none = await refused(sdk(undefined, null).getPasskeyAuthenticationSigninOptions({ environmentId: t.environmentId }));
    expect(none).toMatchObject({ status: 400, body: { code: "origin_required" } });
    const elsewhere = await refused(sdk(undefined, "https://evil.example.net").getPasskeyAuthenticationSigninOptions({ environmentId: t.environmentId }));
    expect(elsewhere).toMatchObject({ status: 422, body: { code: "origin_not_allowed" } });
    const anonymous = await refused(sdk().getPasskeyRegistrationOptions({ environmentId: t.environmentId }));
    expect(anonymous.status).toBe(401);
    // A parent domain may be the RP id; an unrelated one may not.
    const parent = await sdk().getPasskeyAuthenticationSigninOptions({ environmentId: t.environmentId, relatedOriginRpId: "example.com" });
    expect(parent.rpId).toBe("example.com");
    const unrelated = await refused(sdk().getPasskeyAuthenticationSigninOptions({ environmentId: t.environmentId, relatedOriginRpId: "evil.net" }));
    expect(unrelated).toMatchObject({ status: 400, body: { code: "invalid_rp_id" } });
  });
});

describe("attacks on passkey sign-in", () => {
  let auth: SoftwareAuthenticator;
  let owner: Awaited<ReturnType<typeof userWithPasskey>>;

  beforeAll(async () => {
    auth = new SoftwareAuthenticator();
    owner = await userWithPasskey(t, auth);
  });

  it("a replayed answer: the challenge is used up by the first sign-in", async () => {
    const assertion = auth.get(await signInOptions(t), ORIGIN);
    await signInWith(t, assertion);
    const replay = await refused(signInWith(t, assertion));
    expect(replay).toMatchObject({ status: 422, body: { code: "invalid_challenge" } });
  });

  it("two concurrent sign-ins with one challenge: exactly one wins", async () => {
    const assertion = auth.get(await signInOptions(t), ORIGIN);
    const results = await Promise.allSettled([signInWith(t, assertion), signInWith(t, assertion)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const loser = await refused(Promise.reject((results.find((r) => r.status === "rejected") as PromiseRejectedResult).reason));
    expect(loser).toMatchObject({ status: 422, body: { code: "invalid_challenge" } });
  });

  it("an answer to a challenge never issued, or issued for another ceremony", async () => {
    const made = auth.get({ challenge: Buffer.alloc(32, 7).toString("base64url"), rpId: "app.example.com" }, ORIGIN);
    expect(await refused(signInWith(t, made))).toMatchObject({ status: 422, body: { code: "invalid_challenge" } });
    // A registration challenge of the owner's session, answered as a sign-in.
    const reg = await sdk(owner.jwt).getPasskeyRegistrationOptions({ environmentId: t.environmentId });
    const crossed = auth.get({ challenge: reg.challenge, rpId: "app.example.com" }, ORIGIN);
    expect(await refused(signInWith(t, crossed))).toMatchObject({ status: 422, body: { code: "invalid_challenge" } });
    // The clientData names one challenge, the signature another: the signature no longer verifies.
    const a = auth.get(await signInOptions(t), ORIGIN);
    const b = auth.get(await signInOptions(t), ORIGIN);
    const mixed = { ...b, response: { ...b.response, signature: a.response.signature } };
    expect(await refused(signInWith(t, mixed))).toMatchObject({ status: 422, body: { code: "invalid_passkey" } });
  });

  it("a phishing page: another origin in the client data, another RP id in the authenticator data", async () => {
    const phished = auth.get(await signInOptions(t), "https://app.example.com.evil.net");
    expect(await refused(signInWith(t, phished))).toMatchObject({ status: 422, body: { code: "invalid_passkey" } });
    const otherRp = auth.get(await signInOptions(t), ORIGIN, { rpId: "evil.net" });
    expect(await refused(signInWith(t, otherRp))).toMatchObject({ status: 422, body: { code: "invalid_passkey" } });
    // The answer posted from a page of another origin than the one the challenge was issued to.
    const fromElsewhere = await refused(
      sdk(undefined, "https://evil.example.net").signinWithPasskey({ environmentId: t.environmentId, passkeyAuthRequest: authRequest(auth.get(await signInOptions(t), ORIGIN)) }),
    );
    expect(fromElsewhere).toMatchObject({ status: 422, body: { code: "origin_not_allowed" } });
  });

  it("a tampered signature or authenticator data, and an answer without user verification", async () => {
    const a = auth.get(await signInOptions(t), ORIGIN);
    const sig = Buffer.from(a.response.signature, "base64url");
    sig[sig.length - 1] ^= 1;
    const tampered = { ...a, response: { ...a.response, signature: sig.toString("base64url") } };
    expect(await refused(signInWith(t, tampered))).toMatchObject({ status: 422, body: { code: "invalid_passkey" } });
    const b = auth.get(await signInOptions(t), ORIGIN);
    const data = Buffer.from(b.response.authenticatorData, "base64url");
    data[36] += 100; // the counter's low byte
    const forged = { ...b, response: { ...b.response, authenticatorData: data.toString("base64url") } };
    expect(await refused(signInWith(t, forged))).toMatchObject({ status: 422, body: { code: "invalid_passkey" } });
    const noUv = auth.get(await signInOptions(t), ORIGIN, { userVerified: false });
    expect(await refused(signInWith(t, noUv))).toMatchObject({ status: 422, body: { code: "invalid_passkey" } });
  });

  it("a cloned authenticator: a counter that does not grow is refused and audited", async () => {
    const original = new SoftwareAuthenticator();
    const u = await userWithPasskey(t, original);
    const clone = SoftwareAuthenticator.load(original.save());
    await signInWith(t, original.get(await signInOptions(t), ORIGIN));
    const r = await refused(signInWith(t, clone.get(await signInOptions(t), ORIGIN)));
    expect(r).toMatchObject({ status: 422, body: { code: "passkey_counter_regressed" } });
    const audit = await app.db.one("SELECT changes FROM audit_log WHERE environment_id = $1 AND action = 'user.passkey.counter_regressed' AND actor_user_id = $2", [
      t.environmentId,
      u.userId,
    ]);
    expect(audit.changes.after).toMatchObject({ storedCount: 1, receivedCount: 1 });
  });

  it("another user's credential id: their key, not the one that signed", async () => {
    const mallory = new SoftwareAuthenticator();
    const m = await userWithPasskey(t, mallory);
    const a = mallory.get(await signInOptions(t), ORIGIN);
    const ownerCredential = (await sdk(owner.jwt).getUserPasskeys({ environmentId: t.environmentId })).passkeys[0];
    const swapped = { ...a, id: ownerCredential.credentialId, rawId: ownerCredential.credentialId };
    expect(await refused(signInWith(t, swapped))).toMatchObject({ status: 422, body: { code: "invalid_passkey" } });
    // Nor register the owner's credential (one credential id, one user, per environment).
    const ownerAgain = await sdk(m.jwt).getPasskeyRegistrationOptions({ environmentId: t.environmentId });
    const duplicate = auth.create(ownerAgain, ORIGIN, { credentialId: ownerCredential.credentialId });
    const taken = await refused(sdk(m.jwt).registerPasskey({ environmentId: t.environmentId, passkeyRegisterRequest: registerRequest(duplicate) }));
    expect(taken).toMatchObject({ status: 422, body: { code: "passkey_already_registered" } });
    // Nor can one user rename or remove another's passkey.
    const rename = await refused(sdk(m.jwt).updatePasskey({ environmentId: t.environmentId, updateUserPasskeyRequest: { id: ownerCredential.id, alias: "mine" } }));
    expect(rename.status).toBe(404);
    const del = await refused(sdk(m.jwt).deletePasskey({ environmentId: t.environmentId, deleteUserPasskeyRequest: { passkeyId: ownerCredential.id } }));
    expect(del.status).toBe(404);
    expect((await sdk(owner.jwt).getUserPasskeys({ environmentId: t.environmentId })).count).toBe(1);
  });

  it("another environment: its passkeys, challenges and sessions are unknown here", async () => {
    const other = await tenant();
    // The owner's passkey answering the other environment's challenge.
    const foreign = await refused(signInWith(other, auth.get(await signInOptions(other), ORIGIN)));
    expect(foreign).toMatchObject({ status: 422, body: { code: "unknown_passkey" } });
    // This environment's challenge answered at the other one.
    const crossed = await refused(signInWith(other, auth.get(await signInOptions(t), ORIGIN)));
    expect(crossed).toMatchObject({ status: 422, body: { code: "invalid_challenge" } });
    // This environment's session on the other environment's passkey operations.
    const session = await refused(sdk(owner.jwt).getUserPasskeys({ environmentId: other.environmentId }));
    expect(session.status).toBe(401);
  });

  it("bad input: a clear 400 and nothing changed", async () => {
    const r = await call(app.baseUrl, "POST", `/sdk/${t.environmentId}/users/passkeys/signin`, {
      headers: { origin: ORIGIN },
      body: { id: "x", rawId: "x", type: "password", response: {} },
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    const del = await refused(sdk(owner.jwt).deletePasskey({ environmentId: t.environmentId, deleteUserPasskeyRequest: { passkeyId: "not-a-uuid" } }));
    expect(del.status).toBe(400);
  });
});

describe("a passkey as a second factor", () => {
  let m: BootstrapResult;
  beforeAll(async () => {
    m = await tenant({ security: { mfa: { enabled: true, required: true, methods: [{ type: "passkey", enabled: true }] } } });
  });

  /** Enrols a passkey MFA device from a session that owes its second factor (the user's first factor). */
  async function enrol(auth: SoftwareAuthenticator) {
    const s = await signInAs(app, m.environmentId);
    expect(decodeJwt(s.jwt).scope).toBe("requiresAdditionalAuth");
    const device = await sdk(s.jwt).registerPasskeyMfaDevice({ environmentId: m.environmentId });
    expect(device).toMatchObject({ type: "passkey", registration: { rp: { id: "app.example.com" } } });
    const a = auth.create(device.registration as never, ORIGIN);
    const r = await sdk(s.jwt).registerPasskeyMfaDeviceVerify({
      environmentId: m.environmentId,
      mFARegisterPasskeyDevicePostRequest: { id: device.id, attestation: a as never },
    });
    return { ...s, deviceId: device.id, credentialId: a.id, full: r };
  }

  it("enrolling the first device passes the factor; later sign-ins pass it with the passkey", async () => {
    const auth = new SoftwareAuthenticator();
    const e = await enrol(auth);
    expect(decodeJwt(e.full.jwt!).scope).not.toContain("requiresAdditionalAuth");
    const device = await app.db.one("SELECT type, verified_at, is_default FROM user_mfa_devices WHERE id = $1", [e.deviceId]);
    expect(device).toMatchObject({ type: "passkey", verified_at: expect.any(Date), is_default: true });

    const s = await signInAs(app, m.environmentId, e.email);
    expect(decodeJwt(s.jwt).scope).toBe("requiresAdditionalAuth");
    expect((await refused(sdk(s.jwt).getUserPasskeys({ environmentId: m.environmentId }))).body.code).toBe("mfa_required");
    // A second device needs the first one passed.
    expect(await refused(sdk(s.jwt).registerPasskeyMfaDevice({ environmentId: m.environmentId }))).toMatchObject({ status: 403, body: { code: "mfa_required" } });

    const o = await sdk(s.jwt).getPasskeyAuthenticationOptions({ environmentId: m.environmentId });
    expect(o.allowCredentials?.map((c) => c.id)).toEqual([e.credentialId]);
    const passed = await sdk(s.jwt).authenticateMfaPasskeyDevice({
      environmentId: m.environmentId,
      passkeyAuthRequest: authRequest(auth.get(o, ORIGIN), { createMfaToken: { singleUse: true } }),
    });
    expect(decodeJwt(passed.jwt!).sid).toBe(s.sessionId);
    expect(decodeJwt(passed.jwt!).scope).not.toContain("requiresAdditionalAuth");
    expect(passed.mfaToken).toMatch(/^mfa_/);
    await sdk(passed.jwt).getUserPasskeys({ environmentId: m.environmentId });

    // With a sign-in passkey too, a session owing its factor is offered only the device's key.
    const laptop = new SoftwareAuthenticator();
    const reg = await sdk(passed.jwt).getPasskeyRegistrationOptions({ environmentId: m.environmentId });
    await sdk(passed.jwt).registerPasskey({ environmentId: m.environmentId, passkeyRegisterRequest: registerRequest(laptop.create(reg, ORIGIN)) });
    const later = await signInAs(app, m.environmentId, e.email);
    const offered = await sdk(later.jwt).getPasskeyAuthenticationOptions({ environmentId: m.environmentId });
    expect(offered.allowCredentials?.map((c) => c.id)).toEqual([e.credentialId]);
    expect((await sdk(passed.jwt).getPasskeyAuthenticationOptions({ environmentId: m.environmentId })).allowCredentials).toHaveLength(2);

    // The device's key is a second factor only: it signs nobody in.
    const asSignIn = await refused(signInWith(m, auth.get(await signInOptions(m), ORIGIN)));
    expect(asSignIn).toMatchObject({ status: 422, body: { code: "unknown_passkey" } });

    expect(await eventsOf(m.environmentId, e.userId)).toEqual(
      expect.arrayContaining(["user.mfa_device.created", "user.mfa_device.verified", "user.passkey.created", "user.mfa.passed"]),
    );
  });

  it("another user's passkey, or another session's challenge, does not pass the factor", async () => {
    const alice = new SoftwareAuthenticator();
    const a = await enrol(alice);
    const bob = new SoftwareAuthenticator();
    await enrol(bob);
    const s = await signInAs(app, m.environmentId, a.email);
    const o = await sdk(s.jwt).getPasskeyAuthenticationOptions({ environmentId: m.environmentId });
    const wrongUser = await refused(sdk(s.jwt).authenticateMfaPasskeyDevice({ environmentId: m.environmentId, passkeyAuthRequest: authRequest(bob.get(o, ORIGIN)) }));
    expect(wrongUser).toMatchObject({ status: 422, body: { code: "unknown_passkey" } });

    const s2 = await signInAs(app, m.environmentId, a.email);
    const o2 = await sdk(s2.jwt).getPasskeyAuthenticationOptions({ environmentId: m.environmentId });
    const otherSession = await refused(sdk(s.jwt).authenticateMfaPasskeyDevice({ environmentId: m.environmentId, passkeyAuthRequest: authRequest(alice.get(o2, ORIGIN)) }));
    expect(otherSession).toMatchObject({ status: 422, body: { code: "invalid_challenge" } });
  });

  it("five wrong answers lock the factor, even against the right one", async () => {
    const auth = new SoftwareAuthenticator();
    const e = await enrol(auth);
    const s = await signInAs(app, m.environmentId, e.email);
    for (let i = 0; i < 5; i++) {
      const a = auth.get(await sdk(s.jwt).getPasskeyAuthenticationOptions({ environmentId: m.environmentId }), ORIGIN);
      const sig = Buffer.from(a.response.signature, "base64url");
      sig[sig.length - 1] ^= 1;
      const wrong = { ...a, response: { ...a.response, signature: sig.toString("base64url") } };
      const r = await refused(sdk(s.jwt).authenticateMfaPasskeyDevice({ environmentId: m.environmentId, passkeyAuthRequest: authRequest(wrong) }));
      expect(r.status).toBe(422);
    }
    const right = auth.get(await sdk(s.jwt).getPasskeyAuthenticationOptions({ environmentId: m.environmentId }), ORIGIN);
    const locked = await refused(sdk(s.jwt).authenticateMfaPasskeyDevice({ environmentId: m.environmentId, passkeyAuthRequest: authRequest(right) }));
    expect(locked).toMatchObject({ status: 429, body: { code: "factor_locked" } });
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("an environment that does not offer passkeys as a second factor refuses the enrolment", async () => {
    const x = await tenant({ security: { mfa: { enabled: true, methods: [{ type: "totp", enabled: true }] } } });
    const s = await signInAs(app, x.environmentId);
    const r = await refused(sdk(s.jwt).registerPasskeyMfaDevice({ environmentId: x.environmentId }));
    expect(r).toMatchObject({ status: 422, body: { code: "mfa_method_not_enabled" } });
  });
});

describe("over gRPC", () => {
  it("sign-in options with the page's origin in the metadata; none without it", async () => {
    const client = createClient(SdkPasskeysService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const r = await client.getPasskeyAuthenticationSigninOptions({ environmentId: t.environmentId }, { headers: { origin: ORIGIN } });
    expect(r.options?.rpId).toBe("app.example.com");
    expect(r.options?.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const err = await client.getPasskeyAuthenticationSigninOptions({ environmentId: t.environmentId }).catch((e) => ConnectError.from(e));
    expect((err as ConnectError).code).toBe(Code.InvalidArgument);
  });
});
