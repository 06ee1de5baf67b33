import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT, UnsecuredJWT, generateKeyPair } from "jose";
import { Configuration, SDKApi } from "@dynamic-labs/sdk-api";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { SdkSessionsService } from "../../src/gen/sigil/sessions/v0/sessions_service_pb.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { startSecondApi } from "../support/second-api.js";
import { statusOf } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";

let app: TestApp;
let second: Awaited<ReturnType<typeof startSecondApi>>;
let t: BootstrapResult;
let other: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  second = await startSecondApi(app);
  t = await app.bootstrap({ ownerEmail: `sessions-${Date.now()}@example.com` });
  other = await app.bootstrap({ ownerEmail: `sessions-other-${Date.now()}@example.com` });
});
afterAll(async () => {
  await second?.stop();
  await app?.stop();
});

/** The published client, as a client app configures it (with the end user's JWT when signed in). */
const sdk = (jwt?: string, baseUrl = app.baseUrl) =>
  new SDKApi(new Configuration({ basePath: `${baseUrl}/api/v0`, ...(jwt ? { accessToken: jwt, headers: { Authorization: `Bearer ${jwt}` } } : {}) }));


const check = (jwt: string, environmentId = t.environmentId, baseUrl = app.baseUrl) => statusOf(sdk(jwt, baseUrl).sessionCheck({ environmentId }));

describe("session tokens", () => {
  it("are signed with the environment's key, published on both JWKS paths, with the session's claims", async () => {
    const s = await signInAs(app, t.environmentId);
    const viaClient = await sdk().getJwksByEnvironmentId({ environmentId: t.environmentId });
    expect(await sdk().getJwksJsonByEnvironmentId({ environmentId: t.environmentId })).toEqual(viaClient);
    // The client's JwksKey model keeps RSA members only (kid, alg, kty, use, n, e): an EC key's x and y
    // reach a relying party that reads the JSON itself, as JWKS libraries do.
    const jwks = (await call(app.baseUrl, "GET", `/sdk/${t.environmentId}/.well-known/jwks.json`)).body;
    expect(jwks).toEqual((await call(app.baseUrl, "GET", `/sdk/${t.environmentId}/.well-known/jwks`)).body);
    expect(jwks.keys).toHaveLength(1);
    expect(viaClient.keys[0]).toMatchObject({ kid: jwks.keys[0].kid, alg: "ES256", kty: "EC", use: "sig" });
    const { payload, protectedHeader } = await jwtVerify(s.jwt, createLocalJWKSet(jwks as never));
    expect(protectedHeader).toMatchObject({ alg: "ES256", kid: jwks.keys[0].kid });
    expect(payload).toMatchObject({ iss: `sigil/${t.environmentId}`, sub: s.userId, sid: s.sessionId, environment_id: t.environmentId });
    expect(String(payload.scope).split(" ")).toContain("user:basic");
    expect(payload.exp! - payload.iat!).toBe(7200);
    expect(payload.verified_credentials).toEqual([expect.objectContaining({ format: "email", email: s.email })]);
    // The minified token: the same session without the credentials.
    const mini = decodeJwt(s.minifiedJwt);
    expect(mini).toMatchObject({ sub: s.userId, sid: s.sessionId });
    expect(mini.verified_credentials).toBeUndefined();
  });

  it("sessionCheck accepts a live session and answers 401 to everything else", async () => {
    const s = await signInAs(app, t.environmentId);
    expect(await check(s.jwt)).toBe(200);
    const raw = await call(app.baseUrl, "GET", `/sdk/${t.environmentId}/session`, { token: s.jwt });
    expect(raw.status).toBe(204);

    // No token, garbage, a tampered signature or payload.
    expect((await call(app.baseUrl, "GET", `/sdk/${t.environmentId}/session`)).status).toBe(401);
    expect(await check("not-a-jwt")).toBe(401);
    const [h, p, sig] = s.jwt.split(".");
    const flipped = sig.slice(0, 10) + (sig[10] === "A" ? "B" : "A") + sig.slice(11);
    expect(await check(`${h}.${p}.${flipped}`)).toBe(401);
    const forged = Buffer.from(JSON.stringify({ ...decodeJwt(s.jwt), sub: "00000000-0000-4000-8000-000000000000" })).toString("base64url");
    expect(await check(`${h}.${forged}.${sig}`)).toBe(401);

    // alg: none, with the environment's kid.
    const kid = decodeProtectedHeader(s.jwt).kid!;
    const none = new UnsecuredJWT({ ...decodeJwt(s.jwt) }).encode();
    const [, noneBody] = none.split(".");
    const noneHeader = Buffer.from(JSON.stringify({ alg: "none", kid })).toString("base64url");
    expect(await check(`${noneHeader}.${noneBody}.`)).toBe(401);

    // Signed by a key of our own making that names the environment's kid.
    const attacker = await generateKeyPair("ES256");
    const impostor = await new SignJWT({ ...decodeJwt(s.jwt) }).setProtectedHeader({ alg: "ES256", kid }).sign(attacker.privateKey);
    expect(await check(impostor)).toBe(401);

    // Another environment's token, on this environment (and this one's there).
    const foreign = await signInAs(app, other.environmentId);
    expect(await check(foreign.jwt)).toBe(401);
    expect(await check(s.jwt, other.environmentId)).toBe(401);
  });

  it("an expired token answers 401, even one the process verified while it was valid", async () => {
    const s = await signInAs(app, t.environmentId);
    const key = await app.deps.sessionKeys.signingKey(t.environmentId);
    const claims = decodeJwt(s.jwt);
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ ...claims, iat: now - 100, exp: now - 1 }).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.key);
    expect(await check(expired)).toBe(401);
    const shortLived = await new SignJWT({ ...claims, iat: now, exp: now + 2 }).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.key);
    expect(await check(shortLived)).toBe(200);
    // Time is the subject: the token's own exp (whole seconds) passes.
    await new Promise((r) => setTimeout(r, 2100));
    expect(await check(shortLived)).toBe(401);
  });
});

describe("refresh and revoke", () => {
  it("refreshAuth answers a new token for the same session, a full lifetime from now", async () => {
    const s = await signInAs(app, t.environmentId);
    // Time is the subject: a second later (exp has whole seconds), the new token's lifetime ends later.
    await new Promise((r) => setTimeout(r, 1100));
    const r = await sdk(s.jwt).refreshAuth({ environmentId: t.environmentId });
    expect(r.jwt).not.toBe(s.jwt);
    expect(typeof r.expiresAt).toBe("number");
    expect(r.expiresAt).toBeGreaterThan(s.expiresAt);
    expect(decodeJwt(r.jwt!)).toMatchObject({ sid: s.sessionId, sub: s.userId, exp: r.expiresAt });
    expect(r.user.id).toBe(s.userId);
    expect(r.user.sessionId).toBe(s.sessionId);
    expect(r.user.verifiedCredentials.map((c) => c.email)).toEqual([s.email]);
    expect(await check(r.jwt!)).toBe(200);
    const row = await app.db.one("SELECT expires_at FROM sessions WHERE id = $1", [s.sessionId]);
    expect(Math.floor(row.expires_at.getTime() / 1000)).toBe(r.expiresAt);
  });

  it("a session's answers carry the user as the client's SdkUser has it, without the user's other sessions; GET user still lists them", async () => {
    const email = `many-sessions-${Date.now()}@example.com`;
    const first = await signInAs(app, t.environmentId, email);
    await signInAs(app, t.environmentId, email);
    const refreshed = await call(app.baseUrl, "POST", `/sdk/${t.environmentId}/refresh`, { token: first.jwt });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.user.id).toBe(first.userId);
    expect(refreshed.body.user.verifiedCredentials.map((c: { email?: string }) => c.email)).toEqual([email]);
    expect(refreshed.body.user).not.toHaveProperty("sessions");
    const read = await call(app.baseUrl, "GET", `/environments/${t.environmentId}/users/${first.userId}`, { token: t.token });
    expect(read.body.user.sessions).toHaveLength(2);
  });

  it("revokeSession ends the session at once on every api process; a revoked session cannot refresh", async () => {
    const s = await signInAs(app, t.environmentId);
    // Both processes have verified (and remembered) the token.
    expect(await check(s.jwt)).toBe(200);
    expect(await check(s.jwt, t.environmentId, second.baseUrl)).toBe(200);
    expect(await statusOf(sdk(s.jwt).revokeSession({ environmentId: t.environmentId }))).toBe(200);
    expect(await check(s.jwt)).toBe(401);
    expect(await check(s.jwt, t.environmentId, second.baseUrl)).toBe(401);
    expect(await statusOf(sdk(s.jwt, second.baseUrl).refreshAuth({ environmentId: t.environmentId }))).toBe(401);
    const row = await app.db.one("SELECT revoked_at FROM sessions WHERE id = $1", [s.sessionId]);
    expect(row.revoked_at).not.toBeNull();
    const audit = await app.db.any("SELECT actor_user_id, actor_token_id FROM audit_log WHERE resource_id = $1 AND action = 'user.session.revoked'", [s.sessionId]);
    expect(audit).toEqual([{ actor_user_id: s.userId, actor_token_id: null }]);
  });

  it("the management revoke-sessions reaches every api process too, and Postgres refuses it even without the store's marker", async () => {
    const s = await signInAs(app, t.environmentId);
    expect(await check(s.jwt, t.environmentId, second.baseUrl)).toBe(200);
    const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/users/${s.userId}/sessions/revoke`, { token: t.token });
    expect(res.status, res.text).toBeLessThan(300);
    expect(await check(s.jwt)).toBe(401);
    expect(await check(s.jwt, t.environmentId, second.baseUrl)).toBe(401);
    // Lose the store's marker (a Redis flush): Postgres, the source of truth, still refuses the token.
    await app.store.del(`session:state:${s.sessionId}`);
    expect(await check(s.jwt)).toBe(401);
    expect(await check(s.jwt, t.environmentId, second.baseUrl)).toBe(401);
    expect(await statusOf(sdk(s.jwt).refreshAuth({ environmentId: t.environmentId }))).toBe(401);
  });

  it("deleting the user through the management API revokes its sessions", async () => {
    const s = await signInAs(app, t.environmentId);
    const res = await call(app.baseUrl, "DELETE", `/environments/${t.environmentId}/users/${s.userId}`, { token: t.token });
    expect(res.status, res.text).toBeLessThan(300);
    expect(await check(s.jwt, t.environmentId, second.baseUrl)).toBe(401);
  });
});

describe("key rotation", () => {
  it("choosing RS256 rotates the key: the old one stays published and its tokens keep verifying", async () => {
    const x = await app.bootstrap({ ownerEmail: `rotation-${Date.now()}@example.com` });
    const before = await signInAs(app, x.environmentId);
    const res = await call(app.baseUrl, "PUT", `/environments/${x.environmentId}`, {
      token: x.token,
      body: { security: { jwtDuration: { amount: 1, unit: "hours" }, jwtSigningAlgorithm: "RS256" } },
    });
    expect(res.status, res.text).toBe(200);
    const jwks = (await call(app.baseUrl, "GET", `/sdk/${x.environmentId}/.well-known/jwks.json`)).body;
    expect(jwks.keys.map((k: { alg: string }) => k.alg).sort()).toEqual(["ES256", "RS256"]);
    // An RS256 key is whole through the published client too.
    const viaClient = await sdk().getJwksByEnvironmentId({ environmentId: x.environmentId });
    expect(viaClient.keys.find((k) => k.alg === "RS256")).toMatchObject({ kty: "RSA", e: "AQAB", use: "sig", n: expect.any(String) });
    const after = await signInAs(app, x.environmentId);
    expect(decodeProtectedHeader(after.jwt).alg).toBe("RS256");
    // Both verify against the published set, on both processes (the second learns the new kid on first sight).
    for (const jwt of [before.jwt, after.jwt]) {
      await jwtVerify(jwt, createLocalJWKSet(jwks as never));
      expect(await check(jwt, x.environmentId)).toBe(200);
      expect(await check(jwt, x.environmentId, second.baseUrl)).toBe(200);
    }
    // The old key is published until the tokens it signed (then 2 hours long) have expired.
    const old = await app.db.one("SELECT published_until - retired_at AS kept FROM environment_signing_keys WHERE environment_id = $1 AND alg = 'ES256'", [x.environmentId]);
    expect(old.kept.hours).toBe(2);
  });
});

describe("over gRPC", () => {
  it("the same session operations with the JWT in the authorization metadata", async () => {
    const s = await signInAs(app, t.environmentId);
    const client = createClient(SdkSessionsService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const headers = { authorization: `Bearer ${s.jwt}` };
    await client.sessionCheck({ environmentId: t.environmentId }, { headers });
    const refreshed = await client.refreshAuth({ environmentId: t.environmentId }, { headers });
    expect(refreshed.signIn?.user?.id).toBe(s.userId);
    expect(decodeJwt(refreshed.signIn!.jwt).sid).toBe(s.sessionId);
    const keys = await client.getJwks({ environmentId: t.environmentId });
    expect(keys.keys[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256" });
    const foreign = await client.sessionCheck({ environmentId: other.environmentId }, { headers }).catch((e) => ConnectError.from(e));
    expect((foreign as ConnectError).code).toBe(Code.Unauthenticated);
    await client.revokeSession({ environmentId: t.environmentId }, { headers });
    const after = await client.sessionCheck({ environmentId: t.environmentId }, { headers }).catch((e) => ConnectError.from(e));
    expect((after as ConnectError).code).toBe(Code.Unauthenticated);
  });
});
