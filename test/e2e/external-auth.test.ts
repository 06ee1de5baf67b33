import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { exportSPKI, importJWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkExternalAuthService } from "../../src/gen/sigil/external_jwt/v0/sdk_external_auth_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";
import { idpKey, TestIdp, type IdpKey } from "./support/external-idp.js";

/**
 * Signing in with a JWT of the environment's own identity provider (externalAuthSignin, externalAuthVerify)
 * through the published client, against a JWKS server on loopback: key rotation, and the attacks on
 * tokens (alg none, HMAC with the public key, wrong issuer or audience, expired, replayed, another
 * environment's token, no subject).
 */

let app: TestApp;
let idp: TestIdp;
let key1: IdpKey;
let tenant: BootstrapResult;
const AUD = "tenant-app";

beforeAll(async () => {
  // Short JWKS cooldown and max age, so that rotation is seen within the test (defaults: 30 s and 10 min).
  app = await startTestApp({ externalSignIn: { jwksCooldownMs: 100, jwksMaxAgeMs: 1500, socialHubUrl: undefined } });
  key1 = await idpKey("key-1");
  idp = await TestIdp.start([key1]);
  tenant = await newTenant();
  await trustIdp(tenant, { jwksUrl: idp.jwksUrl });
}, 60_000);
afterAll(async () => {
  await idp?.stop();
  await app?.stop();
});

const sdk = (jwt?: string) => sdkFor(app.baseUrl, jwt);
const newTenant = () => app.bootstrap({ ownerEmail: `external-auth-${randomUUID()}@example.com` });
async function trustIdp(t: BootstrapResult, externalAuth: Record<string, unknown>) {
  const res = await call(app.baseUrl, "PUT", `/environments/${t.environmentId}`, {
    token: t.token,
    body: { security: { externalAuth: { enabled: true, iss: idp.issuer, aud: AUD, ...externalAuth } } },
  });
  if (res.status !== 200) throw new Error(`settings: ${res.status} ${res.text}`);
}
const signIn = (jwt: string, environmentId = tenant.environmentId) => sdk().externalAuthSignin({ environmentId, externalAuthSigninRequest: { jwt } });
const externalIdOf = async (userId: string) => (await app.db.one("SELECT external_user_id FROM users WHERE id = $1", [userId])).external_user_id;
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe("externalAuthSignin", () => {
  it("creates the user named by sub on first sign-in and signs the same user in next time", async () => {
    const sub = `ext-${randomUUID()}`;
    const first = await signIn(await idp.token({ aud: AUD, sub, email: "Ext.User@Example.com" }));
    expect(first.user.newUser).toBe(true);
    expect(first.user.email).toBe("ext.user@example.com");
    expect(await externalIdOf(first.user.id)).toBe(sub);
    await sdk(first.jwt).sessionCheck({ environmentId: tenant.environmentId });

    const second = await signIn(await idp.token({ aud: AUD, sub }));
    expect(second.user.newUser).toBe(false);
    expect(second.user.id).toBe(first.user.id);
    const events = await app.db.any("SELECT event_name FROM events WHERE environment_id = $1 AND user_id = $2", [tenant.environmentId, first.user.id]);
    expect(events.map((e) => e.event_name)).toEqual(expect.arrayContaining(["user.created", "user.session.created"]));
  });

  it("uses a token once: a replay is 401 external_jwt_replayed, and of two concurrent uses exactly one wins", async () => {
    const token = await idp.token({ aud: AUD, sub: `ext-${randomUUID()}` });
    await signIn(token);
    const replay = await refused(signIn(token));
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe("external_jwt_replayed");

    const race = await idp.token({ aud: AUD, sub: `ext-${randomUUID()}` });
    const results = await Promise.allSettled([signIn(race), signIn(race)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });

  it("follows a key rotation: a new key id is fetched at once, a removed key stops verifying", async () => {
    // An environment of its own: its cached key set is its own, and the published keys it changes are put
    // back (with the cache still at [key2] for this environment only) before the other tests run.
    const rot = await newTenant();
    await trustIdp(rot, { jwksUrl: idp.jwksUrl });
    const signInRot = (jwt: string) => signIn(jwt, rot.environmentId);
    const key2 = await idpKey("key-2");
    const early = await idp.token({ aud: AUD, sub: `ext-${randomUUID()}` }, key2);
    expect((await refused(signInRot(early))).body.code).toBe("invalid_external_jwt");

    idp.published = [key1, key2];
    await new Promise((r) => setTimeout(r, 150)); // past the cooldown since the last fetch
    const rotated = await signInRot(await idp.token({ aud: AUD, sub: `ext-${randomUUID()}` }, key2));
    expect(rotated.user.newUser).toBe(true);

    try {
      idp.published = [key2];
      await new Promise((r) => setTimeout(r, 1600)); // past the max age of the cached key set
      const old = await refused(signInRot(await idp.token({ aud: AUD, sub: `ext-${randomUUID()}` }, key1)));
      expect(old.status).toBe(401);
      expect(old.body.error).toMatch(/no key of the JWKS matches/);
    } finally {
      idp.published = [key1, key2];
    }
  });

  it("refuses alg none, and HS256 signed with the public key as its secret", async () => {
    const claims = { iss: idp.issuer, aud: AUD, sub: "attacker", exp: nowSeconds() + 300 };
    const none = `${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.`;
    expect((await refused(signIn(none))).status).toBe(401);

    // Algorithm confusion against a PEM-configured environment: the public key is no secret.
    const pemTenant = await newTenant();
    const pem = await exportSPKI((await importJWK(key1.publicJwk, "ES256")) as CryptoKey);
    await trustIdp(pemTenant, { publicKey: pem });
    const hs = await new SignJWT({ sub: "attacker" }).setProtectedHeader({ alg: "HS256" }).setIssuer(idp.issuer).setAudience(AUD).setExpirationTime("5m").sign(new TextEncoder().encode(pem));
    const r = await refused(signIn(hs, pemTenant.environmentId));
    expect(r.status).toBe(401);
    expect(r.body.error).toMatch(/algorithm is not accepted/);
    // The same environment accepts its provider's real token.
    expect((await signIn(await idp.token({ aud: AUD, sub: `ext-${randomUUID()}` }), pemTenant.environmentId)).user.newUser).toBe(true);
  });

  it("refuses a wrong issuer or audience, an expired token, one without sub, and no user is created", async () => {
    const before = await app.db.one("SELECT count(*)::int AS n FROM users WHERE environment_id = $1", [tenant.environmentId]);
    const cases = [
      await idp.token({ aud: AUD, sub: "x1" }, key1, { issuer: "https://someone-else.example" }),
      await idp.token({ aud: "another-app", sub: "x2" }),
      await idp.token({ aud: AUD, sub: "x3" }, key1, { expiresIn: nowSeconds() - 120 }),
      await idp.token({ aud: AUD }),
    ];
    const answers = await Promise.all(cases.map((t) => refused(signIn(t))));
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401]);
    expect(answers.map((a) => a.body.code)).toEqual(Array(4).fill("invalid_external_jwt"));
    expect(answers[0].body.error).toMatch(/claim iss/);
    expect(answers[1].body.error).toMatch(/claim aud/);
    expect(answers[2].body.error).toMatch(/expired/);
    expect(answers[3].body.error).toMatch(/claim sub is missing/);
    const after = await app.db.one("SELECT count(*)::int AS n FROM users WHERE environment_id = $1", [tenant.environmentId]);
    expect(after.n).toBe(before.n);
  });

  it("refuses another environment's token (its own provider, or the same provider for another audience)", async () => {
    const other = await newTenant();
    const otherIdp = await TestIdp.start([await idpKey("other-1")]);
    try {
      await trustIdp(other, { jwksUrl: otherIdp.jwksUrl, iss: otherIdp.issuer });
      const theirs = await otherIdp.token({ aud: AUD, sub: "their-user" });
      expect((await refused(signIn(theirs))).status).toBe(401);
      expect((await signIn(theirs, other.environmentId)).user.newUser).toBe(true);

      const third = await newTenant();
      await trustIdp(third, { jwksUrl: idp.jwksUrl, aud: "third-app" });
      expect((await refused(signIn(await idp.token({ aud: AUD, sub: "cross" }), third.environmentId))).status).toBe(401);
    } finally {
      await otherIdp.stop();
    }
  });

  it("honours the configured algorithms, and is 403 when external sign-in is off", async () => {
    const t = await newTenant();
    await trustIdp(t, { jwksUrl: idp.jwksUrl, allowedAlgorithms: ["RS256"] });
    const r = await refused(signIn(await idp.token({ aud: AUD, sub: "alg" }), t.environmentId));
    expect(r.status).toBe(401);
    expect(r.body.error).toMatch(/algorithm/);
    const bad = await call(app.baseUrl, "PUT", `/environments/${t.environmentId}`, {
      token: t.token,
      body: { security: { externalAuth: { enabled: true, jwksUrl: idp.jwksUrl, allowedAlgorithms: ["HS256"] } } },
    });
    expect(bad.status).toBe(400);

    const off = await newTenant();
    const disabled = await refused(signIn(await idp.token({ aud: AUD, sub: "off" }), off.environmentId));
    expect(disabled.status).toBe(403);
    expect(disabled.body.code).toBe("sign_in_method_disabled");
  });

  it("the management check applies the same rules (a token without exp is not accepted)", async () => {
    const noExp = await new SignJWT({ sub: "u" }).setProtectedHeader({ alg: "ES256", kid: key1.kid }).setIssuer(idp.issuer).setAudience(AUD).sign(key1.privateKey);
    const res = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/externalJwt/check`, { token: tenant.token, body: { encodedJwt: noExp } });
    expect(res.body).toEqual({ valid: false, errors: ["claim exp is missing"] });
  });
});

describe("externalAuthVerify", () => {
  it("names the subject on the signed-in user; another user's subject is 422", async () => {
    const user = await signInAs(app, tenant.environmentId);
    const sub = `ext-${randomUUID()}`;
    await sdk(user.jwt).externalAuthVerify({ environmentId: tenant.environmentId, externalAuthSigninRequest: { jwt: await idp.token({ aud: AUD, sub }) } });
    expect(await externalIdOf(user.userId)).toBe(sub);
    const again = await signIn(await idp.token({ aud: AUD, sub }));
    expect(again.user.id).toBe(user.userId);

    const other = await signInAs(app, tenant.environmentId);
    const taken = await refused(sdk(other.jwt).externalAuthVerify({ environmentId: tenant.environmentId, externalAuthSigninRequest: { jwt: await idp.token({ aud: AUD, sub }) } }));
    expect(taken.status).toBe(422);
    expect(taken.body.code).toBe("credential_owned_by_another_user");

    const anonymous = await refused(sdk().externalAuthVerify({ environmentId: tenant.environmentId, externalAuthSigninRequest: { jwt: await idp.token({ aud: AUD, sub: "anon" }) } }));
    expect(anonymous.status).toBe(401);
  });
});

describe("over gRPC", () => {
  it("signs in with ExternalAuthSignin", async () => {
    const client = createClient(SdkExternalAuthService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const r = await client.externalAuthSignin({ environmentId: tenant.environmentId, jwt: await idp.token({ aud: AUD, sub: `grpc-${randomUUID()}` }) });
    expect(r.signIn?.user?.newUser).toBe(true);
    await expect(client.externalAuthSignin({ environmentId: tenant.environmentId, jwt: "not-a-jwt" })).rejects.toMatchObject({ code: 16 });
  });
});
