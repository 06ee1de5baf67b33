import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbeddedWalletsService } from "../../src/gen/sigil/embedded_wallets/v0/embedded_wallets_service_pb.js";
import { WalletsService } from "../../src/gen/sigil/wallets/v0/wallets_service_pb.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

const randomEvmAddress = () => privateKeyToAddress(generatePrivateKey());
const randomSolAddress = () => base58.encode(ed25519.getPublicKey(ed25519.utils.randomSecretKey()));
const email = () => `${randomUUID()}@example.com`;

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: email() });
  other = await app.bootstrap({ ownerEmail: email() });
});
afterAll(() => app?.stop());

const env = () => `/environments/${t.environmentId}`;

async function createUser(body: Record<string, unknown> = {}) {
  const res = await call(app.baseUrl, "POST", `${env()}/users`, { token: t.token, body });
  expect(res.status, res.text).toBe(201);
  return res.body.user as { id: string };
}

async function linkWallet(userId: string, body: Record<string, unknown> = {}) {
  const res = await call(app.baseUrl, "POST", `${env()}/users/${userId}/wallets`, {
    token: t.token,
    body: { publicWalletAddress: randomEvmAddress(), chain: "EVM", walletName: "metamask", walletProvider: "browserExtension", ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function pregenerate(body: Record<string, unknown>, token = t.token, environmentId = t.environmentId) {
  return call(app.baseUrl, "POST", `/environments/${environmentId}/embeddedWallets`, { token, body });
}

async function count(sql: string, params: unknown[] = []): Promise<number> {
  return (await app.db.one(`SELECT count(*) AS n FROM (${sql}) x`, params)).n;
}

const envCounts = async (environmentId = t.environmentId) => ({
  users: await count("SELECT 1 FROM users WHERE environment_id = $1", [environmentId]),
  wallets: await count("SELECT 1 FROM wallets WHERE environment_id = $1", [environmentId]),
  keys: await count("SELECT 1 FROM embedded_wallet_keys WHERE environment_id = $1", [environmentId]),
  credentials: await count("SELECT 1 FROM verified_credentials WHERE environment_id = $1", [environmentId]),
  audit: await count("SELECT 1 FROM audit_log WHERE environment_id = $1", [environmentId]),
});

async function auditRows(resourceId: string) {
  return app.db.any("SELECT * FROM audit_log WHERE resource_id = $1 ORDER BY created_at", [resourceId]);
}

/** Opens a pregenerated wallet's sealed key and derives its address again. */
async function addressFromSealedKey(walletId: string, chain: string): Promise<string> {
  const row = await app.db.one("SELECT * FROM embedded_wallet_keys WHERE wallet_id = $1", [walletId]);
  const hex = app.deps.sealer.open(row.private_key_sealed, `wallet:${walletId}:private_key`);
  expect(hex).toMatch(/^[0-9a-f]{64}$/);
  if (chain === "EVM") return privateKeyToAddress(`0x${hex}`);
  return base58.encode(ed25519.getPublicKey(Uint8Array.from(Buffer.from(hex, "hex"))));
}

describe("wallets of a user (environment and deprecated paths)", () => {
  it("links wallets, lists and reads them the same on both paths, and audits the links", async () => {
    const user = await createUser({ email: email() });
    const a = await linkWallet(user.id);
    expect(a).toMatchObject({ name: "metamask", chain: "EVM", provider: "browserExtension", userId: user.id });
    const deprecated = await call(app.baseUrl, "POST", `/users/${user.id}/wallets`, {
      token: t.token,
      body: { publicWalletAddress: randomSolAddress(), chain: "SOL", walletName: "phantom", walletProvider: "browserExtension" },
    });
    expect(deprecated.status, deprecated.text).toBe(201);
    expect(deprecated.body).toMatchObject({ chain: "SOL", name: "phantom", userId: user.id });

    const listed = await call(app.baseUrl, "GET", `${env()}/users/${user.id}/wallets`, { token: t.token });
    expect(listed.status).toBe(200);
    expect(listed.body.count).toBe(2);
    expect(listed.body.wallets.map((w: any) => w.id)).toEqual([a.id, deprecated.body.id]);
    expect((await call(app.baseUrl, "GET", `/users/${user.id}/wallets`, { token: t.token })).body).toEqual(listed.body);

    const got = await call(app.baseUrl, "GET", `${env()}/wallets/${a.id}`, { token: t.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(a);
    expect((await call(app.baseUrl, "GET", `/wallets/${a.id}`, { token: t.token })).body).toEqual(a);
    // A member (account) token reaches the same wallet, on the deprecated path through the wallet's environment.
    expect((await call(app.baseUrl, "GET", `/wallets/${a.id}`, { token: t.memberToken })).body).toEqual(a);
    expect((await call(app.baseUrl, "GET", `${env()}/wallets/${a.id}`, { token: t.memberToken })).body).toEqual(a);

    for (const w of [a, deprecated.body]) {
      const rows = await auditRows(w.id);
      expect(rows.map((r) => r.action)).toEqual(["wallet.created"]);
      expect(rows[0]).toMatchObject({ resource_type: "wallet", environment_id: t.environmentId, organization_id: t.organizationId, actor_token_id: t.tokenId });
      expect(rows[0].changes.after).toMatchObject({ id: w.id, userId: user.id, address: w.publicKey });
    }
  });

  it("refuses bad input and a second wallet next to an embedded one, changing nothing", async () => {
    const user = await createUser({ email: email() });
    const before = await envCounts();
    const bad = await call(app.baseUrl, "POST", `${env()}/users/${user.id}/wallets`, {
      token: t.token,
      body: { publicWalletAddress: "0x1234", chain: "EVM", walletName: "w", walletProvider: "browserExtension" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "invalid_wallet_address", error: expect.any(String) });
    const badChain = await call(app.baseUrl, "POST", `/users/${user.id}/wallets`, {
      token: t.token,
      body: { publicWalletAddress: randomEvmAddress(), chain: "DOGE", walletName: "w", walletProvider: "browserExtension" },
    });
    expect(badChain.status).toBe(400);
    expect(badChain.body.code).toBeTruthy();
    const noUser = await call(app.baseUrl, "POST", `${env()}/users/${randomUUID()}/wallets`, {
      token: t.token,
      body: { publicWalletAddress: randomEvmAddress(), chain: "EVM", walletName: "w", walletProvider: "browserExtension" },
    });
    expect(noUser.status).toBe(404);
    expect(await envCounts()).toEqual(before);

    await linkWallet(user.id, { walletName: "embedded", walletProvider: "embeddedWallet" });
    const afterEmbedded = await envCounts();
    const second = await call(app.baseUrl, "POST", `${env()}/users/${user.id}/wallets`, {
      token: t.token,
      body: { publicWalletAddress: randomEvmAddress(), chain: "EVM", walletName: "other", walletProvider: "browserExtension" },
    });
    expect(second.status).toBe(422);
    expect(second.body).toMatchObject({ code: "user_has_embedded_wallet", error: expect.any(String) });
    expect(await envCounts()).toEqual(afterEmbedded);
  });

  it("lists the environment's wallets with filters, paging and the total count", async () => {
    const fresh = await app.bootstrap({ ownerEmail: email() });
    const path = `/environments/${fresh.environmentId}/wallets`;
    const empty = await call(app.baseUrl, "GET", path, { token: fresh.token });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ wallets: [], count: 0, limit: expect.any(Number), offset: 0 });

    const mk = async (body: Record<string, unknown>) => {
      const u = await call(app.baseUrl, "POST", `/environments/${fresh.environmentId}/users`, { token: fresh.token, body: { email: email() } });
      const res = await call(app.baseUrl, "POST", `/environments/${fresh.environmentId}/users/${u.body.user.id}/wallets`, {
        token: fresh.token,
        body: { walletName: "w", walletProvider: "browserExtension", ...body },
      });
      expect(res.status, res.text).toBe(201);
      return res.body;
    };
    const w1 = await mk({ publicWalletAddress: randomEvmAddress(), chain: "EVM" });
    const w2 = await mk({ publicWalletAddress: randomSolAddress(), chain: "SOL" });
    const w3 = await mk({ publicWalletAddress: randomEvmAddress(), chain: "EVM", walletProvider: "walletConnect" });

    const all = await call(app.baseUrl, "GET", path, { token: fresh.token });
    expect(all.body.count).toBe(3);
    expect(all.body.wallets.map((w: any) => w.id)).toEqual([w3.id, w2.id, w1.id]);
    const page = await call(app.baseUrl, "GET", `${path}?offset=1&limit=1`, { token: fresh.token });
    expect(page.body).toMatchObject({ count: 3 });
    expect(page.body.wallets.map((w: any) => w.id)).toEqual([w2.id]);
    const evm = await call(app.baseUrl, "GET", `${path}?chain=EVM`, { token: fresh.token });
    expect(evm.body.count).toBe(2);
    expect(evm.body.wallets.map((w: any) => w.id)).toEqual([w3.id, w1.id]);
    const wc = await call(app.baseUrl, "GET", `${path}?provider=walletConnect`, { token: fresh.token });
    expect(wc.body.wallets.map((w: any) => w.id)).toEqual([w3.id]);
    const byUser = await call(app.baseUrl, "GET", `${path}?userId=${w2.userId}`, { token: fresh.token });
    expect(byUser.body).toMatchObject({ count: 1, wallets: [{ id: w2.id, userId: w2.userId }] });
    // The published client's WalletDetail: lowercased address, environment and timestamps.
    expect(all.body.wallets[0]).toMatchObject({
      lowerPublicKey: w3.publicKey.toLowerCase(),
      projectEnvironmentId: fresh.environmentId,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    for (const q of ["?limit=5000", "?offset=-1", "?chain=DOGE", "?userId=nope"]) {
      const res = await call(app.baseUrl, "GET", `${path}${q}`, { token: fresh.token });
      expect(res.status, q).toBe(400);
      expect(res.body.code, q).toBeTruthy();
    }
  });
});

describe("pregenerated embedded wallets", () => {
  it("creates the user by e-mail and one wallet per chain, with sealed keys the addresses derive from", async () => {
    const address = email();
    const before = await envCounts();
    const res = await pregenerate({ identifier: address, type: "email", chains: ["EVM", "SOL"] });
    expect(res.status, res.text).toBe(201);
    const user = res.body.user;
    expect(user).toMatchObject({ email: address, projectEnvironmentId: t.environmentId });
    expect(user.wallets).toHaveLength(2);
    expect(user.wallets.map((w: any) => w.chain)).toEqual(["EVM", "SOL"]);
    for (const w of user.wallets) {
      expect(w).toMatchObject({ provider: "embeddedWallet", properties: { version: "V2" } });
      expect(await addressFromSealedKey(w.id, w.chain)).toBe(w.publicKey);
      const row = await app.db.one("SELECT * FROM wallets WHERE id = $1", [w.id]);
      expect(row.pregenerated_at).not.toBeNull();
      expect(row.claimed_at).toBeNull();
      expect(row.user_id).toBe(user.id);
      // Bound to its wallet: the sealed key does not open under another wallet's associated data.
      const key = await app.db.one("SELECT private_key_sealed FROM embedded_wallet_keys WHERE wallet_id = $1", [w.id]);
      expect(() => app.deps.sealer.open(key.private_key_sealed, `wallet:${randomUUID()}:private_key`)).toThrow();
      expect(res.text).not.toContain(key.private_key_sealed);
      expect(res.text).not.toContain(app.deps.sealer.open(key.private_key_sealed, `wallet:${w.id}:private_key`));
    }
    expect(user.wallets[0].publicKey).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(user.verifiedCredentials.filter((c: any) => c.format === "email").map((c: any) => c.email)).toEqual([address]);
    expect(user.verifiedCredentials.filter((c: any) => c.format === "blockchain")).toHaveLength(2);

    const after = await envCounts();
    expect(after.users - before.users).toBe(1);
    expect(after.wallets - before.wallets).toBe(2);
    expect(after.keys - before.keys).toBe(2);

    expect((await auditRows(user.id)).map((r) => r.action)).toEqual(["user.created"]);
    for (const w of user.wallets) {
      const rows = await auditRows(w.id);
      expect(rows.map((r) => r.action)).toEqual(["embedded_wallet.pregenerated"]);
      expect(rows[0]).toMatchObject({ actor_token_id: t.tokenId, environment_id: t.environmentId });
      expect(JSON.stringify(rows[0].changes)).not.toMatch(/sealed|private/i);
    }
  });

  it("adds a chain to an existing user, and answers 422 for a chain the user already has, changing nothing", async () => {
    const address = email();
    const first = await pregenerate({ identifier: address, type: "email", chain: "EVM" });
    expect(first.status, first.text).toBe(201);
    const userId = first.body.user.id;
    const before = await envCounts();
    const again = await pregenerate({ identifier: address.toUpperCase(), type: "email", chains: ["SOL", "EVM"] });
    expect(again.status).toBe(422);
    expect(again.body).toMatchObject({ code: "embedded_wallet_already_exists", error: expect.any(String) });
    expect(await envCounts()).toEqual(before);

    const sol = await pregenerate({ identifier: address, type: "email", chains: ["SOL"] });
    expect(sol.status, sol.text).toBe(201);
    expect(sol.body.user.id).toBe(userId);
    expect(sol.body.user.wallets.map((w: any) => w.chain)).toEqual(["EVM", "SOL"]);
    const credentials = await count("SELECT 1 FROM verified_credentials WHERE user_id = $1 AND format = 'email'", [userId]);
    expect(credentials).toBe(1);
  });

  it("finds or creates users by phone number, external user id and id", async () => {
    const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
    const byPhone = await pregenerate({ identifier: phone, type: "phoneNumber" });
    expect(byPhone.status, byPhone.text).toBe(201);
    expect(byPhone.body.user).toMatchObject({ phoneNumber: phone });
    expect(byPhone.body.user.wallets.map((w: any) => w.chain)).toEqual(["EVM"]);
    expect(byPhone.body.user.verifiedCredentials.find((c: any) => c.format === "phoneNumber")).toMatchObject({ phoneNumber: phone });

    const external = `crm-${randomUUID()}`;
    const byExternal = await pregenerate({ identifier: external, type: "externalUserId", chains: ["SOL"] });
    expect(byExternal.status, byExternal.text).toBe(201);
    const row = await app.db.one("SELECT external_user_id FROM users WHERE id = $1", [byExternal.body.user.id]);
    expect(row.external_user_id).toBe(external);
    const sameExternal = await pregenerate({ identifier: external, type: "externalUserId", chains: ["EVM"] });
    expect(sameExternal.status, sameExternal.text).toBe(201);
    expect(sameExternal.body.user.id).toBe(byExternal.body.user.id);
    expect(sameExternal.body.user.wallets).toHaveLength(2);

    const existing = await createUser({ email: email() });
    const byId = await pregenerate({ identifier: existing.id, type: "id", chains: ["EVM"] });
    expect(byId.status, byId.text).toBe(201);
    expect(byId.body.user.id).toBe(existing.id);
    const missing = await pregenerate({ identifier: randomUUID(), type: "id" });
    expect(missing.status).toBe(404);
  });

  it("rejects bad identifiers and chains with 400, changing nothing", async () => {
    const before = await envCounts();
    const cases: [Record<string, unknown>, string | null][] = [
      [{ identifier: "not-an-email", type: "email" }, "invalid_identifier"],
      [{ identifier: "12345", type: "phoneNumber" }, "invalid_identifier"],
      [{ identifier: "abc", type: "id" }, "invalid_identifier"],
      [{ identifier: email(), type: "username" }, null],
      [{ identifier: email(), type: "email", chains: ["BTC"] }, null],
      [{ identifier: email(), type: "email", chains: ["EVM", "SOL", "EVM"] }, null],
      [{ type: "email" }, null],
    ];
    for (const [body, code] of cases) {
      const res = await pregenerate(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toEqual(expect.any(String));
      if (code) expect(res.body.code).toBe(code);
      else expect(res.body.code).toBeTruthy();
    }
    expect(await envCounts()).toEqual(before);
  });

  it("pregenerates for a decentralized-social account, linked as an oauth credential", async () => {
    const fid = 100_000 + Math.floor(Math.random() * 1e6);
    const username = `alice${fid}`;
    const res = await call(app.baseUrl, "POST", `${env()}/embeddedWallets/decentralizedSocial`, {
      token: t.token,
      body: { fid, username, chains: ["EVM"] },
    });
    expect(res.status, res.text).toBe(201);
    const user = res.body.user;
    const vc = user.verifiedCredentials.find((c: any) => c.format === "oauth");
    expect(vc).toMatchObject({ oauth_provider: "decentralizedSocial", oauth_account_id: String(fid), oauth_username: username });
    expect(user.oauthAccounts).toEqual([expect.objectContaining({ id: vc.id, provider: "decentralizedSocial", accountUsername: username })]);
    expect(user.wallets).toHaveLength(1);
    expect(await addressFromSealedKey(user.wallets[0].id, "EVM")).toBe(user.wallets[0].publicKey);
    expect((await auditRows(vc.id)).map((r) => r.action)).toEqual(["verified_credential.created"]);

    // The same account again: the same user; by username alone too.
    const sol = await call(app.baseUrl, "POST", `${env()}/embeddedWallets/decentralizedSocial`, {
      token: t.token,
      body: { username: username.toUpperCase(), chains: ["SOL"] },
    });
    expect(sol.status, sol.text).toBe(201);
    expect(sol.body.user.id).toBe(user.id);
    const before = await envCounts();
    const dup = await call(app.baseUrl, "POST", `${env()}/embeddedWallets/decentralizedSocial`, { token: t.token, body: { fid, chains: ["EVM"] } });
    expect(dup.status).toBe(422);
    expect(dup.body.code).toBe("embedded_wallet_already_exists");
    const none = await call(app.baseUrl, "POST", `${env()}/embeddedWallets/decentralizedSocial`, { token: t.token, body: { chains: ["EVM"] } });
    expect(none.status).toBe(400);
    expect(none.body.code).toBe("fid_or_username_required");
    const badEmail = await call(app.baseUrl, "POST", `${env()}/embeddedWallets/decentralizedSocial`, { token: t.token, body: { fid: fid + 1, email: "nope" } });
    expect(badEmail.status).toBe(400);
    expect(await envCounts()).toEqual(before);

    // A new account with the e-mail of an existing user is linked to that user.
    const owner = await createUser({ email: email() });
    const ownerEmail = (await app.db.one("SELECT email FROM users WHERE id = $1", [owner.id])).email;
    const linked = await call(app.baseUrl, "POST", `${env()}/embeddedWallets/decentralizedSocial`, {
      token: t.token,
      body: { fid: fid + 2, email: ownerEmail },
    });
    expect(linked.status, linked.text).toBe(201);
    expect(linked.body.user.id).toBe(owner.id);
    expect(linked.body.user.verifiedCredentials.find((c: any) => c.format === "oauth")).toMatchObject({ oauth_account_id: String(fid + 2) });
  });

  it("reports the environment's embedded wallet versions with their counts", async () => {
    const fresh = await app.bootstrap({ ownerEmail: email() });
    const path = `/environments/${fresh.environmentId}/embeddedWalletVersions`;
    const empty = await call(app.baseUrl, "GET", path, { token: fresh.token });
    expect(empty.status).toBe(200);
    // REST answers the bare list of versions in use (counts and the default version are on gRPC).
    expect(empty.body).toEqual([]);
    const created = await pregenerate({ identifier: email(), type: "email", chains: ["EVM", "SOL"] }, fresh.token, fresh.environmentId);
    expect(created.status, created.text).toBe(201);
    await pregenerate({ identifier: email(), type: "email" }, fresh.token, fresh.environmentId);
    // A wallet recorded with an older version (as imported data would be).
    await app.db.none("UPDATE wallets SET properties = '{\"version\":\"V1\"}' WHERE id = $1", [created.body.user.wallets[1].id]);
    const res = await call(app.baseUrl, "GET", path, { token: fresh.token });
    expect(res.body).toEqual(["V1", "V2"]);
  });
});

describe("delete and recover", () => {
  it("soft-deletes wallets on both paths (204, audited) and recovers them through the workflow, audited", async () => {
    const res = await pregenerate({ identifier: email(), type: "email", chains: ["EVM", "SOL"] });
    expect(res.status, res.text).toBe(201);
    const user = res.body.user;
    const [evm, sol] = user.wallets;

    const del1 = await call(app.baseUrl, "DELETE", `/wallets/${evm.id}`, { token: t.token });
    expect(del1.status).toBe(204);
    expect(del1.text).toBe("");
    const del2 = await call(app.baseUrl, "DELETE", `${env()}/wallets/${sol.id}`, { token: t.memberToken });
    expect(del2.status).toBe(204);
    expect((await call(app.baseUrl, "DELETE", `${env()}/wallets/${sol.id}`, { token: t.token })).status).toBe(404);
    expect((await call(app.baseUrl, "GET", `${env()}/wallets/${evm.id}`, { token: t.token })).status).toBe(404);
    expect((await call(app.baseUrl, "GET", `/users/${user.id}/wallets`, { token: t.token })).body).toEqual({ wallets: [], count: 0 });
    const deleted = await auditRows(evm.id);
    expect(deleted.map((r) => r.action)).toEqual(["embedded_wallet.pregenerated", "wallet.deleted"]);
    expect(deleted[1].changes.before).toMatchObject({ id: evm.id, address: evm.publicKey });
    expect((await auditRows(sol.id)).at(-1)).toMatchObject({ action: "wallet.deleted", actor_account_id: t.accountId });

    const recovered = await call(app.baseUrl, "POST", `${env()}/wallets/recover`, { token: t.token, body: { userId: user.id } });
    expect(recovered.status, recovered.text).toBe(200);
    expect(recovered.body.data).toMatchObject({ userId: user.id, recoveredWallets: 2, skippedWalletIds: [] });
    expect(recovered.body.message).toEqual(expect.any(String));
    const listed = await call(app.baseUrl, "GET", `${env()}/users/${user.id}/wallets`, { token: t.token });
    expect(listed.body.wallets.map((w: any) => w.id).sort()).toEqual([evm.id, sol.id].sort());
    // The same wallets: their keys still open and still derive their addresses.
    expect(await addressFromSealedKey(evm.id, "EVM")).toBe(evm.publicKey);
    for (const w of [evm, sol]) {
      const rows = await auditRows(w.id);
      expect(rows.at(-1)).toMatchObject({ action: "wallet.recovered", resource_type: "wallet", actor_token_id: t.tokenId, environment_id: t.environmentId });
      expect(rows.at(-1).request_id).toBeTruthy();
    }
    // Nothing left to recover: no further rows.
    const again = await call(app.baseUrl, "POST", `${env()}/wallets/recover`, { token: t.token, body: { userId: user.id } });
    expect(again.body.data.recoveredWallets).toBe(0);
    expect(await count("SELECT 1 FROM audit_log WHERE action = 'wallet.recovered' AND resource_id = ANY($1)", [[evm.id, sol.id]])).toBe(2);
  });

  it("keeps a deleted embedded wallet deleted when the chain got a new one meanwhile", async () => {
    const address = email();
    const first = await pregenerate({ identifier: address, type: "email" });
    const old = first.body.user.wallets[0];
    expect((await call(app.baseUrl, "DELETE", `/wallets/${old.id}`, { token: t.token })).status).toBe(204);
    const second = await pregenerate({ identifier: address, type: "email" });
    expect(second.status, second.text).toBe(201);
    const recovered = await call(app.baseUrl, "POST", `${env()}/wallets/recover`, { token: t.token, body: { userId: first.body.user.id } });
    expect(recovered.body.data).toMatchObject({ recoveredWallets: 0, skippedWalletIds: [old.id] });
  });
});

describe("tenancy", () => {
  it("answers 404 to another tenant's tokens on every wallet operation and changes nothing", async () => {
    const res = await pregenerate({ identifier: email(), type: "email" });
    const user = res.body.user;
    const wallet = user.wallets[0];
    const before = await envCounts();
    for (const token of [other.token, other.memberToken]) {
      const tries: [string, string, unknown?][] = [
        ["GET", `${env()}/wallets/${wallet.id}`],
        ["GET", `/wallets/${wallet.id}`],
        ["DELETE", `${env()}/wallets/${wallet.id}`],
        ["DELETE", `/wallets/${wallet.id}`],
        ["GET", `${env()}/users/${user.id}/wallets`],
        ["GET", `/users/${user.id}/wallets`],
        ["POST", `/users/${user.id}/wallets`, { publicWalletAddress: randomEvmAddress(), chain: "EVM", walletName: "w", walletProvider: "browserExtension" }],
        ["GET", `${env()}/wallets`],
        ["GET", `${env()}/embeddedWalletVersions`],
        ["POST", `${env()}/embeddedWallets`, { identifier: email(), type: "email" }],
        ["POST", `${env()}/embeddedWallets/decentralizedSocial`, { fid: 42 }],
        ["POST", `${env()}/wallets/recover`, { userId: user.id }],
      ];
      for (const [method, path, body] of tries) {
        const r = await call(app.baseUrl, method, path, { token, body });
        expect(r.status, `${method} ${path}`).toBe(404);
        expect(r.body.code).toBe("not_found");
      }
    }
    // The other tenant's own environment does not see the wallet either.
    const theirs = await call(app.baseUrl, "GET", `/environments/${other.environmentId}/wallets/${wallet.id}`, { token: other.token });
    expect(theirs.status).toBe(404);
    const theirList = await call(app.baseUrl, "GET", `/environments/${other.environmentId}/wallets`, { token: other.token });
    expect(theirList.body.wallets.map((w: any) => w.id)).not.toContain(wallet.id);
    expect(await envCounts()).toEqual(before);
  });
});

describe("over Connect and gRPC", () => {
  it("pregenerates an embedded wallet and lists the environment's wallets", async () => {
    const headers = { authorization: `Bearer ${t.token}` };
    const embedded = createClient(EmbeddedWalletsService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const created = await embedded.createEmbeddedWallet(
      { environmentId: t.environmentId, identifier: email(), type: "email", chains: ["SOL"] },
      { headers },
    );
    const wallet = created.user!.wallets[0]!;
    expect(wallet.provider).toBe("embeddedWallet");
    expect(await addressFromSealedKey(wallet.id, "SOL")).toBe(wallet.publicKey);

    const walletsClient = createClient(WalletsService, createConnectTransport({ baseUrl: app.baseUrl, httpVersion: "1.1" }));
    const list = await walletsClient.listWallets({ environmentId: t.environmentId, userId: created.user!.id }, { headers });
    expect(list.count).toBe(1);
    expect(list.wallets.map((w) => w.id)).toEqual([wallet.id]);
    expect(list.wallets[0]!.userId).toBe(created.user!.id);

    const versions = await embedded.getEmbeddedWalletVersions({ environmentId: t.environmentId }, { headers });
    expect(versions.defaultVersion).toBe("V2");
    expect(versions.versions.find((v) => v.version === "V2")!.count).toBeGreaterThan(0);
    await expect(
      embedded.createEmbeddedWallet({ environmentId: t.environmentId, identifier: "x", type: "email" }, { headers }),
    ).rejects.toMatchObject({ code: 3 /* InvalidArgument */ });
  });
});

describe("known tokens of a chain (GET /chains/{chainName}/tokens)", () => {
  // token "" sends none.
  const tokens = (chain: string, query = "", token = t.token) =>
    call(app.baseUrl, "GET", `/chains/${chain}/tokens${query}`, { token: token || undefined });
  const USDC_ARBITRUM = "0xaf88d065e77c8cC2239327C5EDb3A432268e5831";

  it("answers the bare list of the chain's tokens, every network, to environment and member tokens alike", async () => {
    const res = await tokens("EVM");
    expect(res.status, res.text).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    const usdc = res.body.find((x: any) => x.symbol === "USDC");
    expect(usdc.name).toBe("USD Coin");
    expect(usdc.tokenAddresses).toEqual(
      expect.arrayContaining([
        { networkId: 1, contractAddress: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48" },
        { networkId: 42161, contractAddress: USDC_ARBITRUM },
      ]),
    );
    expect(res.body.every((x: any) => x.tokenAddresses.every((a: any) => /^0x[0-9a-fA-F]{40}$/.test(a.contractAddress)))).toBe(true);
    const byMember = await tokens("EVM", "", t.memberToken);
    expect(byMember.status).toBe(200);
    expect(byMember.body).toEqual(res.body);
  });

  it("filters by networkId, leaving out tokens without an address there", async () => {
    const arbitrum = await tokens("EVM", "?networkId=42161");
    expect(arbitrum.status).toBe(200);
    expect(arbitrum.body).toEqual([{ name: "USD Coin", symbol: "USDC", tokenAddresses: [{ networkId: 42161, contractAddress: USDC_ARBITRUM }] }]);
    const mainnet = await tokens("EVM", "?networkId=1");
    expect(mainnet.body.map((x: any) => x.symbol).sort()).toEqual(["DAI", "USDC", "USDT", "WETH"]);
    expect(mainnet.body.flatMap((x: any) => x.tokenAddresses.map((a: any) => a.networkId))).toEqual([1, 1, 1, 1]);
    expect((await tokens("EVM", "?networkId=999999")).body).toEqual([]);
    expect((await tokens("EVM", "?networkId=-1")).status).toBe(400);
    expect((await tokens("EVM", "?networkId=abc")).status).toBe(400);
  });

  it("reads ETH as EVM, has Solana's tokens under SOL and none for a known chain without a catalogue", async () => {
    expect((await tokens("ETH")).body).toEqual((await tokens("EVM")).body);
    const sol = await tokens("SOL", "?networkId=101");
    expect(sol.body.map((x: any) => x.tokenAddresses[0].contractAddress).sort()).toEqual([
      "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
      "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB",
    ]);
    const flow = await tokens("FLOW");
    expect(flow.status).toBe(200);
    expect(flow.body).toEqual([]);
  });

  it("refuses an unknown chain with 400 and a call without a token with 401", async () => {
    const unknown = await tokens("DOGE");
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    expect((await tokens("evm")).status).toBe(400);
    const anonymous = await tokens("EVM", "", "");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe("unauthorized");
  });
});
