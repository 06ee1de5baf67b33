import { generateKeyPairSync } from "node:crypto";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

const randomEvmAddress = () => privateKeyToAddress(generatePrivateKey());
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap();
  other = await app.bootstrap();
});
afterAll(() => app?.stop());

async function createUser(body: Record<string, unknown> = {}) {
  const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/users`, { token: t.token, body });
  expect(res.status, res.text).toBe(201);
  return res.body.user;
}

describe("operation 1: create an API token", () => {
  it("answers 201 with the raw token once, and the token works", async () => {
    const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/tokens`, { token: t.token, body: { note: "ci" } });
    expect(res.status).toBe(201);
    const token = res.body.token;
    expect(token.id).toMatch(UUID);
    expect(token.rawToken).toMatch(/^sgl_[0-9a-f]{64}$/);
    expect(token.checksum).toBe(token.rawToken.slice(-6));
    expect(token).toMatchObject({ active: true, note: "ci", projectEnvironmentId: t.environmentId, projectEnvironment: { id: t.environmentId } });
    expect(token.createdBy).toMatchObject({ id: t.memberId, email: "owner@example.com" });
    const list = await call(app.baseUrl, "GET", `/environments/${t.environmentId}/tokens`, { token: token.rawToken });
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(list.body.tokens.length);
    const listed = list.body.tokens.find((x: any) => x.id === token.id);
    expect(listed.checksum).toBe(token.checksum);
    expect(listed.rawToken).toBeUndefined();
    expect(JSON.stringify(list.body)).not.toContain(token.rawToken);
  });

  it("stores only a SHA-256 hash of the token", async () => {
    const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/tokens`, { token: t.token, body: { note: "hash" } });
    const row = await app.db.one("SELECT * FROM api_tokens WHERE id = $1", [res.body.token.id]);
    expect(JSON.stringify(row)).not.toContain(res.body.token.rawToken.slice(4));
    const { createHash } = await import("node:crypto");
    expect(Buffer.compare(row.token_hash, createHash("sha256").update(res.body.token.rawToken).digest())).toBe(0);
  });

  it("a deleted token gets 401 at once", async () => {
    const created = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/tokens`, { token: t.token, body: { note: "x" } });
    const raw = created.body.token.rawToken;
    expect((await call(app.baseUrl, "GET", `/environments/${t.environmentId}/tokens`, { token: raw })).status).toBe(200);
    const del = await call(app.baseUrl, "DELETE", `/environments/${t.environmentId}/tokens/${created.body.token.id}`, { token: t.token });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    const after = await call(app.baseUrl, "GET", `/environments/${t.environmentId}/tokens`, { token: raw });
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ error: expect.any(String), code: "unauthorized" });
  });

  it("an inactive token gets 401", async () => {
    const created = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/tokens`, { token: t.token, body: { note: "inactive" } });
    await app.db.none("UPDATE api_tokens SET active = false WHERE id = $1", [created.body.token.id]);
    const res = await call(app.baseUrl, "GET", `/environments/${t.environmentId}/tokens`, { token: created.body.token.rawToken });
    expect(res.status).toBe(401);
  });

  it("answers 403 when the token lacks the permission the RPC declares, and changes nothing", async () => {
    const created = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/tokens`, { token: t.token, body: { note: "read-only" } });
    await app.db.none("UPDATE api_tokens SET permissions = '{tokens.read}' WHERE id = $1", [created.body.token.id]);
    const raw = created.body.token.rawToken;
    expect((await call(app.baseUrl, "GET", `/environments/${t.environmentId}/tokens`, { token: raw })).status).toBe(200);
    const before = await app.db.one("SELECT count(*)::int AS n FROM api_tokens WHERE environment_id = $1", [t.environmentId]);
    const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/tokens`, { token: raw, body: { note: "nope" } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "forbidden", error: expect.stringContaining("tokens.write") });
    expect((await app.db.one("SELECT count(*)::int AS n FROM api_tokens WHERE environment_id = $1", [t.environmentId])).n).toBe(before.n);
  });

  it("rejects missing and malformed credentials with 401", async () => {
    expect((await call(app.baseUrl, "GET", `/environments/${t.environmentId}/tokens`)).status).toBe(401);
    const bad = await call(app.baseUrl, "GET", `/environments/${t.environmentId}/tokens`, { token: `sgl_${"0".repeat(64)}` });
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe("unauthorized");
  });
});

describe("operation 2: authorizeHtml", () => {
  it("serves a page that starts the configured OAuth authorization with state and PKCE", async () => {
    const created = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/settings/providers`, {
      token: t.token,
      body: { provider: "oidc", clientId: "client-123", clientSecret: "s3cret", authorizationUrl: "https://issuer.example/authorize" },
    });
    expect(created.status, created.text).toBe(201);
    const res = await fetch(`${app.baseUrl}/api/v0/sdk/${t.environmentId}/providers/oidc/authorizeHtml`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    const href = /href="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, "&");
    const url = new URL(href);
    expect(url.origin + url.pathname).toBe("https://issuer.example/authorize");
    expect(url.searchParams.get("client_id")).toBe("client-123");
    expect(url.searchParams.get("response_type")).toBe("code");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("redirect_uri")).toBe(created.body.redirectUrl);
    const state = url.searchParams.get("state")!;
    const pending = JSON.parse((await app.store.get(`oauth:state:${state}`))!);
    expect(pending).toMatchObject({ environmentId: t.environmentId, providerType: "oidc" });
    const { createHash } = await import("node:crypto");
    expect(createHash("sha256").update(pending.codeVerifier).digest("base64url")).toBe(url.searchParams.get("code_challenge"));
  });

  it("answers 404 for an unconfigured provider, 400 for an unknown provider type or bad environment id", async () => {
    expect((await fetch(`${app.baseUrl}/api/v0/sdk/${t.environmentId}/providers/chat/authorizeHtml`)).status).toBe(404);
    expect((await fetch(`${app.baseUrl}/api/v0/sdk/${t.environmentId}/providers/nope/authorizeHtml`)).status).toBe(400);
    expect((await fetch(`${app.baseUrl}/api/v0/sdk/not-a-uuid/providers/oidc/authorizeHtml`)).status).toBe(400);
  });
});

describe("operation 3: encryption public keys", () => {
  const { publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = publicKey.export({ type: "spki", format: "pem" }).toString();

  it("registers an RSA key with a generated kid of at most 64 characters", async () => {
    const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/waas/delegatedAccess/encryptionPublicKeys`, {
      token: t.token,
      body: { publicKey: pem, alg: "RSA-OAEP-256", type: "external" },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ alg: "RSA-OAEP-256", type: "external", publicKey: pem });
    expect(res.body.kid.length).toBeGreaterThan(0);
    expect(res.body.kid.length).toBeLessThanOrEqual(64);
    expect(new Date(res.body.createdAt).toString()).not.toBe("Invalid Date");
    const again = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/waas/delegatedAccess/encryptionPublicKeys`, {
      token: t.token,
      body: { publicKey: pem, alg: "RSA-OAEP-256", type: "external" },
    });
    expect(again.status).toBe(409);
  });

  it("rejects non-RSA keys, over-long keys and unknown enum values with 400 and stores nothing", async () => {
    const before = await app.db.one("SELECT count(*)::int AS n FROM encryption_public_keys");
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ type: "spki", format: "pem" }).toString();
    const path = `/environments/${t.environmentId}/waas/delegatedAccess/encryptionPublicKeys`;
    for (const body of [
      { publicKey: ec, alg: "RSA-OAEP-256", type: "external" },
      { publicKey: "not a key", alg: "RSA-OAEP-256", type: "external" },
      { publicKey: "x".repeat(4097), alg: "RSA-OAEP-256", type: "external" },
      { publicKey: pem, alg: "RSA-PKCS1", type: "external" },
      { publicKey: pem, alg: "RSA-OAEP-256", type: "mystery" },
    ]) {
      const res = await call(app.baseUrl, "POST", path, { token: t.token, body });
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.body.error).toEqual(expect.any(String));
    }
    expect((await app.db.one("SELECT count(*)::int AS n FROM encryption_public_keys")).n).toBe(before.n);
  });
});

describe("operations 4, 7 and 10: providers", () => {
  it("creates (201), lists, disables (enabledAt null) and enables a provider; the secret never comes back", async () => {
    const created = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/settings/providers`, {
      token: t.token,
      body: { provider: "magicLink", termsUrl: "https://example.com/terms", defaultChainId: 1, keyExportUrl: "https://keys.example.com" },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ provider: "magicLink", defaultChainId: 1, keyExportUrl: "https://keys.example.com" });
    expect(created.body.termsAcceptedByUser).toMatchObject({ termsUrl: "https://example.com/terms", email: "owner@example.com", userId: t.memberId });
    expect(created.body.enabledAt).not.toBeNull();
    const id = created.body.id;

    const disabled = await call(app.baseUrl, "PUT", `/settings/providers/${id}/disable`, { token: t.token });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toHaveProperty("enabledAt", null);
    expect(disabled.body.id).toBe(id);

    const list = await call(app.baseUrl, "GET", `/environments/${t.environmentId}/settings/providers`, { token: t.token });
    expect(list.status).toBe(200);
    expect(list.body.providers.find((p: any) => p.id === id)).toHaveProperty("enabledAt", null);

    const enabled = await call(app.baseUrl, "PUT", `/settings/providers/${id}/enable`, { token: t.token });
    expect(enabled.status).toBe(200);
    expect(typeof enabled.body.enabledAt).toBe("string");
  });

  it("seals the client secret at rest and never returns it", async () => {
    const created = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/settings/providers`, {
      token: t.token,
      body: { provider: "oauth2", clientId: "abc", clientSecret: "very-secret-value", authorizationUrl: "https://auth.example/oauth" },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.text).not.toContain("very-secret-value");
    const row = await app.db.one("SELECT client_secret_sealed FROM providers WHERE id = $1", [created.body.id]);
    expect(row.client_secret_sealed).not.toContain("very-secret-value");
    expect(app.deps.sealer.open(row.client_secret_sealed, `provider:${created.body.id}:client_secret`)).toBe("very-secret-value");
  });

  it("validates defaultChain length and provider values with 400", async () => {
    for (const body of [
      { provider: "sms", defaultChain: "eip" },
      { provider: "sms", defaultChain: "eip155:" + "1".repeat(40) },
      { provider: "notAProvider" },
      { provider: "sms", defaultChainId: "one" },
    ]) {
      const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/settings/providers`, { token: t.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it("requires a token for create provider (operation 7) too", async () => {
    const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/settings/providers`, { body: { provider: "sms" } });
    expect(res.status).toBe(401);
  });

  it("answers 404 for another tenant's provider", async () => {
    const created = await call(app.baseUrl, "POST", `/environments/${other.environmentId}/settings/providers`, {
      token: other.token,
      body: { provider: "emailOnly" },
    });
    expect(created.status).toBe(201);
    const res = await call(app.baseUrl, "PUT", `/settings/providers/${created.body.id}/disable`, { token: t.token });
    expect(res.status).toBe(404);
    const still = await app.db.one("SELECT enabled_at FROM providers WHERE id = $1", [created.body.id]);
    expect(still.enabled_at).not.toBeNull();
  });
});

describe("operation 5: organization invites", () => {
  it("lists invites with a count", async () => {
    const created = await call(app.baseUrl, "POST", `/organizations/${t.organizationId}/invites`, {
      token: t.token,
      body: { email: "dev@example.com", role: "developer" },
    });
    expect(created.status, created.text).toBe(201);
    const res = await call(app.baseUrl, "GET", `/organizations/${t.organizationId}/invites`, { token: t.token });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(res.body.invites.length);
    expect(res.body.invites[0]).toMatchObject({
      organizationId: t.organizationId,
      organizationName: "My organization",
      status: "pending",
      email: "dev@example.com",
      role: "developer",
      createdByEmail: "owner@example.com",
    });
  });

  it("refuses an invite to an existing member with 422", async () => {
    const res = await call(app.baseUrl, "POST", `/organizations/${t.organizationId}/invites`, {
      token: t.token,
      body: { email: "owner@example.com", role: "admin" },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("member_already_exists");
  });

  it("answers 404 for another organization and 400 for a non-UUID id", async () => {
    expect((await call(app.baseUrl, "GET", `/organizations/${other.organizationId}/invites`, { token: t.token })).status).toBe(404);
    expect((await call(app.baseUrl, "GET", `/organizations/ABC/invites`, { token: t.token })).status).toBe(400);
  });
});

describe("operations 6, 8 and 9: users and wallets", () => {
  it("creates a user with verified credentials and reads it by both paths", async () => {
    const address = randomEvmAddress();
    const user = await createUser({
      email: "alice@example.com",
      firstName: "Alice",
      wallets: [{ publicWalletAddress: address.toLowerCase(), chain: "EVM", walletName: "metamask", walletProvider: "browserExtension" }],
    });
    expect(user.id).toMatch(UUID);
    const formats = user.verifiedCredentials.map((c: any) => c.format).sort();
    expect(formats).toEqual(["blockchain", "email"]);
    const vc = user.verifiedCredentials.find((c: any) => c.format === "blockchain");
    expect(vc).toMatchObject({ address, chain: "EVM", wallet_name: "metamask", wallet_provider: "browserExtension", public_identifier: address });
    const legacy = await call(app.baseUrl, "GET", `/users/${user.id}`, { token: t.token });
    expect(legacy.status).toBe(200);
    expect(legacy.body.user).toMatchObject({ id: user.id, email: "alice@example.com", firstName: "Alice", projectEnvironmentId: t.environmentId });
    const current = await call(app.baseUrl, "GET", `/environments/${t.environmentId}/users/${user.id}`, { token: t.token });
    expect(current.body).toEqual(legacy.body);
  });

  it("refuses duplicate emails with 422 email_already_exists", async () => {
    await createUser({ email: "dup@example.com" });
    const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/users`, { token: t.token, body: { email: "DUP@example.com" } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("email_already_exists");
  });

  it("validates wallet addresses for their chain", async () => {
    const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/users`, {
      token: t.token,
      body: { wallets: [{ publicWalletAddress: "0x1234", chain: "EVM", walletName: "w", walletProvider: "browserExtension" }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_wallet_address");
  });

  it("reads another tenant's user as 404", async () => {
    const user = await createUser();
    expect((await call(app.baseUrl, "GET", `/users/${user.id}`, { token: other.token })).status).toBe(404);
    expect((await call(app.baseUrl, "GET", `/environments/${t.environmentId}/users/${user.id}`, { token: other.token })).status).toBe(404);
    expect((await call(app.baseUrl, "GET", `/users/NOT-A-UUID`, { token: t.token })).status).toBe(400);
  });

  it("refuses a second wallet when the user already has an embedded wallet (422)", async () => {
    const user = await createUser();
    const path = `/environments/${t.environmentId}/users/${user.id}/wallets`;
    const first = await call(app.baseUrl, "POST", path, {
      token: t.token,
      body: { publicWalletAddress: randomEvmAddress(), chain: "EVM", walletName: "embedded", walletProvider: "embeddedWallet" },
    });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ name: "embedded", chain: "EVM", provider: "embeddedWallet" });
    const second = await call(app.baseUrl, "POST", path, {
      token: t.token,
      body: { publicWalletAddress: randomEvmAddress(), chain: "EVM", walletName: "other", walletProvider: "browserExtension" },
    });
    expect(second.status).toBe(422);
    expect(second.body.code).toBe("user_has_embedded_wallet");
    const wallets = await call(app.baseUrl, "GET", path, { token: t.token });
    expect(wallets.body.wallets).toHaveLength(1);
    expect(wallets.body.count).toBe(1);
  });

  it("deletes a wallet (204, both paths) and recovers it with its addresses and custody HD wallet through Temporal", async () => {
    const user = await createUser();
    const w1 = await call(app.baseUrl, "POST", `/users/${user.id}/wallets`, {
      token: t.token,
      body: {
        publicWalletAddress: randomEvmAddress(),
        chain: "EVM",
        walletName: "one",
        walletProvider: "browserExtension",
        additionalWalletAddresses: [{ address: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", type: "payment" }],
      },
    });
    expect(w1.status, w1.text).toBe(201);
    const w2 = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/users/${user.id}/wallets`, {
      token: t.token,
      body: { publicWalletAddress: randomEvmAddress(), chain: "EVM", walletName: "two", walletProvider: "walletConnect" },
    });
    // A custody HD wallet behind the first wallet, as embedded wallets have.
    const hd = await app.db.one(
      "INSERT INTO custody_hd_wallets (id, environment_id, user_id) VALUES (gen_random_uuid(), $1, $2) RETURNING id",
      [t.environmentId, user.id],
    );
    await app.db.none("UPDATE wallets SET custody_hd_wallet_id = $1 WHERE id = $2", [hd.id, w1.body.id]);

    const del1 = await call(app.baseUrl, "DELETE", `/wallets/${w1.body.id}`, { token: t.token });
    expect(del1.status).toBe(204);
    expect(del1.text).toBe("");
    const del2 = await call(app.baseUrl, "DELETE", `/environments/${t.environmentId}/wallets/${w2.body.id}`, { token: t.token });
    expect(del2.status).toBe(204);
    expect((await call(app.baseUrl, "DELETE", `/wallets/${w1.body.id}`, { token: t.token })).status).toBe(404);
    expect((await call(app.baseUrl, "GET", `/users/${user.id}/wallets`, { token: t.token })).body).toEqual({ wallets: [], count: 0 });
    expect((await app.db.one("SELECT deleted_at FROM custody_hd_wallets WHERE id = $1", [hd.id])).deleted_at).not.toBeNull();
    expect((await app.db.one("SELECT deleted_at FROM wallet_additional_addresses WHERE wallet_id = $1", [w1.body.id])).deleted_at).not.toBeNull();

    const recovered = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/wallets/recover`, { token: t.token, body: { userId: user.id } });
    expect(recovered.status, recovered.text).toBe(200);
    expect(recovered.body.message).toEqual(expect.any(String));
    expect(recovered.body.data).toMatchObject({ recoveredWallets: 2, recoveredAdditionalAddresses: 1, recoveredCustodyHdWallets: 1 });
    const wallets = await call(app.baseUrl, "GET", `/users/${user.id}/wallets`, { token: t.token });
    expect(wallets.body.wallets.map((w: any) => w.id).sort()).toEqual([w1.body.id, w2.body.id].sort());
    expect((await app.db.one("SELECT deleted_at FROM custody_hd_wallets WHERE id = $1", [hd.id])).deleted_at).toBeNull();
    const user2 = await call(app.baseUrl, "GET", `/users/${user.id}`, { token: t.token });
    expect(user2.body.user.verifiedCredentials.find((c: any) => c.id && c.format === "blockchain").wallet_additional_addresses).toEqual([
      { address: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", type: "payment" },
    ]);

    // The restore of soft-deleted wallets, findable by its id (src/temporal/ids.ts).
    const desc = await app.temporal.workflow.getHandle(`deleted-wallets-restore/${t.environmentId}/${user.id}`).describe();
    expect(desc.status.name).toBe("COMPLETED");
  });

  it("cannot delete or recover another tenant's wallets", async () => {
    const user = await createUser();
    const w = await call(app.baseUrl, "POST", `/users/${user.id}/wallets`, {
      token: t.token,
      body: { publicWalletAddress: randomEvmAddress(), chain: "EVM", walletName: "w", walletProvider: "browserExtension" },
    });
    expect((await call(app.baseUrl, "DELETE", `/wallets/${w.body.id}`, { token: other.token })).status).toBe(404);
    expect((await call(app.baseUrl, "GET", `/wallets/${w.body.id}`, { token: t.token })).status).toBe(200);
    const rec = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/wallets/recover`, { token: other.token, body: { userId: user.id } });
    expect(rec.status).toBe(404);
  });
});

describe("bad input changes nothing", () => {
  it("answers 400 for malformed JSON, wrong types and over-long strings", async () => {
    const before = await app.db.one("SELECT count(*)::int AS n FROM api_tokens");
    const path = `/environments/${t.environmentId}/tokens`;
    const malformed = await call(app.baseUrl, "POST", path, { token: t.token, rawBody: "{not json" });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ error: expect.any(String), code: "malformed_json" });
    expect((await call(app.baseUrl, "POST", path, { token: t.token, body: { note: 42 } })).status).toBe(400);
    expect((await call(app.baseUrl, "POST", path, { token: t.token, body: { note: "n".repeat(300) } })).status).toBe(400);
    expect((await call(app.baseUrl, "POST", `/environments/not-a-uuid/tokens`, { token: t.token, body: {} })).status).toBe(400);
    expect((await app.db.one("SELECT count(*)::int AS n FROM api_tokens")).n).toBe(before.n);
  });

  it("answers 413 for oversized bodies", async () => {
    const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/tokens`, {
      token: t.token,
      rawBody: JSON.stringify({ note: "x".repeat(200_000) }),
    });
    expect(res.status).toBe(413);
    expect(res.body.error).toEqual(expect.any(String));
  });

  it("answers 404 with the error body for unknown routes", async () => {
    const res = await call(app.baseUrl, "GET", "/nothing/here", { token: t.token });
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual(expect.any(String));
  });
});
