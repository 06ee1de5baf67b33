import { generateKeyPairSync, randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58, base64urlnopad } from "@scure/base";
import { Configuration, ThresholdSignatureScheme, WaasApi, WaasBackupOptionsEnum } from "@dynamic-labs/sdk-api";
import { decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import { verifyMessage } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { bytesToHex, hexToBytes } from "viem/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiToken } from "../../src/crypto/api-token.js";
import { openWalletKey } from "../../src/crypto/wallet-keys.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { evaluatePolicy, validateRules } from "../../src/domain/waas/policy.js";
import { verifyWaasSessionToken } from "../../src/domain/waas/custodial/session.js";
import { WaasService } from "../../src/gen/sigil/waas/v0/waas_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { seedWaas } from "./support/seed-waas.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const EVM_RECIPIENT = "0x52908400098527886E0F7030069857D2E4169EE7";

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: `waas-${randomUUID()}@example.com` });
  other = await app.bootstrap({ ownerEmail: `waas-other-${randomUUID()}@example.com` });
}, 60_000);
afterAll(() => app?.stop());

const base = (b: BootstrapResult = t) => `/environments/${b.environmentId}/waas`;

async function count(table: string, environmentId = t.environmentId): Promise<number> {
  return (await app.db.one(`SELECT count(*)::int AS n FROM ${table} WHERE environment_id = $1`, [environmentId])).n;
}

async function auditRows(action: string, resourceId: string) {
  return app.db.any("SELECT * FROM audit_log WHERE action = $1 AND resource_id = $2", [action, resourceId]);
}

async function insertUser(b: BootstrapResult = t): Promise<string> {
  const id = randomUUID();
  await app.db.none("INSERT INTO users (id, environment_id, email) VALUES ($1, $2, $3)", [id, b.environmentId, `${id}@example.com`]);
  return id;
}

async function createWallet(body: Record<string, unknown>, b: BootstrapResult = t) {
  const res = await call(app.baseUrl, "POST", `${base(b)}/create`, { token: b.token, body });
  expect(res.status, res.text).toBe(201);
  // The answer is {wallet, wallets, user?} (the published client's UserResponse, plus the wallets created).
  expect(res.body.wallets).toEqual([res.body.wallet]);
  return res.body.wallet;
}

async function sign(walletId: string, message: string, b: BootstrapResult = t) {
  return call(app.baseUrl, "POST", `${base(b)}/${walletId}/delegatedAccess/signMessage`, { token: b.token, body: { message } });
}

describe("delegated-access encryption public keys", () => {
  const pem = () => generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ type: "spki", format: "pem" }).toString();

  it("registers (audited), lists with count and paging, and reads a key by its id", async () => {
    const created = [];
    for (const alg of ["RSA-OAEP-256", "HYBRID-RSA-AES-256"]) {
      const res = await call(app.baseUrl, "POST", `${base()}/delegatedAccess/encryptionPublicKeys`, {
        token: t.token,
        body: { publicKey: pem(), alg, type: "external" },
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body.id).toMatch(UUID);
      expect(res.body).toMatchObject({ alg, type: "external" });
      created.push(res.body);
      const audit = await auditRows("encryption_public_key.created", res.body.id);
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ resource_type: "encryption_public_key", environment_id: t.environmentId, actor_token_id: t.tokenId });
      expect(audit[0].changes.after.kid).toBe(res.body.kid);
    }

    const list = await call(app.baseUrl, "GET", `${base()}/delegatedAccess/encryptionPublicKeys`, { token: t.token });
    expect(list.status, list.text).toBe(200);
    expect(list.body.count).toBe(await count("encryption_public_keys"));
    expect(list.body.keys.map((k: any) => k.id)).toEqual(expect.arrayContaining(created.map((k) => k.id)));

    const page = await call(app.baseUrl, "GET", `${base()}/delegatedAccess/encryptionPublicKeys?offset=1&limit=1`, { token: t.token });
    expect(page.status).toBe(200);
    expect(page.body.keys).toHaveLength(1);
    expect(page.body.count).toBe(list.body.count);
    expect(page.body.keys[0].id).toBe(list.body.keys[1].id);

    const one = await call(app.baseUrl, "GET", `${base()}/delegatedAccess/encryptionPublicKeys/${created[0].id}`, { token: t.token });
    expect(one.status, one.text).toBe(200);
    expect(one.body).toEqual({ key: created[0], message: expect.any(String) });
  });

  it("answers 404 to other tenants and unknown ids, 400 to malformed ids and page sizes", async () => {
    const res = await call(app.baseUrl, "POST", `${base()}/delegatedAccess/encryptionPublicKeys`, {
      token: t.token,
      body: { publicKey: pem(), alg: "RSA-OAEP-256", type: "service" },
    });
    expect(res.status).toBe(201);
    const id = res.body.id;
    // Another tenant: through its own environment (the key is not there) and through ours (not its environment).
    for (const [path, token] of [
      [`${base(other)}/delegatedAccess/encryptionPublicKeys/${id}`, other.token],
      [`${base()}/delegatedAccess/encryptionPublicKeys/${id}`, other.token],
      [`${base()}/delegatedAccess/encryptionPublicKeys/${id}`, other.memberToken],
      [`${base()}/delegatedAccess/encryptionPublicKeys`, other.token],
      [`${base()}/delegatedAccess/encryptionPublicKeys/${randomUUID()}`, t.token],
    ]) {
      const r = await call(app.baseUrl, "GET", path!, { token: token! });
      expect(r.status, path).toBe(404);
      expect(r.body).toMatchObject({ code: "not_found", error: expect.any(String) });
    }
    const list = await call(app.baseUrl, "GET", `${base(other)}/delegatedAccess/encryptionPublicKeys`, { token: other.token });
    expect(list.body.keys.map((k: any) => k.id)).not.toContain(id);

    const bad = await call(app.baseUrl, "GET", `${base()}/delegatedAccess/encryptionPublicKeys/${res.body.kid}`, { token: t.token });
    expect(bad.status).toBe(400);
    const big = await call(app.baseUrl, "GET", `${base()}/delegatedAccess/encryptionPublicKeys?limit=5000`, { token: t.token });
    expect(big.status).toBe(400);
    expect(big.body.code).toBe("invalid_limit");

    const before = await count("encryption_public_keys");
    const cross = await call(app.baseUrl, "POST", `${base()}/delegatedAccess/encryptionPublicKeys`, {
      token: other.token,
      body: { publicKey: pem(), alg: "RSA-OAEP-256", type: "external" },
    });
    expect(cross.status).toBe(404);
    expect(await count("encryption_public_keys")).toBe(before);
  });

  it("the member token of the owner's account reaches the same keys", async () => {
    const list = await call(app.baseUrl, "GET", `${base()}/delegatedAccess/encryptionPublicKeys`, { token: t.memberToken });
    expect(list.status, list.text).toBe(200);
    expect(list.body.count).toBe(await count("encryption_public_keys"));
  });
});

describe("POST /waas/authenticate", () => {
  it("issues a 15-minute HS256 session token verifiable with the environment's sealed secret", async () => {
    const started = Date.now();
    const res = await call(app.baseUrl, "POST", `${base()}/authenticate`, { token: t.token, body: {} });
    expect(res.status, res.text).toBe(200);
    expect(typeof res.body.token).toBe("string");
    const expiresAt = new Date(res.body.expiresAt).getTime();
    expect(expiresAt - started).toBeGreaterThan(14 * 60_000);
    expect(expiresAt - started).toBeLessThanOrEqual(15 * 60_000 + 2000);

    // The secret is stored sealed; opened with the service's sealer it verifies the token with jose.
    const row = await app.db.one("SELECT * FROM waas_session_keys WHERE environment_id = $1", [t.environmentId]);
    expect(decodeProtectedHeader(res.body.token)).toMatchObject({ alg: "HS256", kid: row.id });
    const secret = base64urlnopad.decode(app.deps.sealer.open(row.secret_sealed, `waas_session_key:${row.id}:secret`));
    expect(row.secret_sealed).not.toContain(base64urlnopad.encode(secret));
    const { payload } = await jwtVerify(res.body.token, secret, { issuer: "sigil", audience: "sigil:waas" });
    expect(payload).toMatchObject({ sub: t.tokenId, environment_id: t.environmentId, scope: "waas" });
    expect(payload.exp! - payload.iat!).toBe(15 * 60);
    expect(payload.exp! * 1000).toBe(expiresAt);

    // The service's own verification: accepted here, refused for another environment or when tampered with.
    await expect(verifyWaasSessionToken(app.deps, t.environmentId, res.body.token)).resolves.toMatchObject({ sub: t.tokenId });
    await expect(verifyWaasSessionToken(app.deps, other.environmentId, res.body.token)).rejects.toMatchObject({ code: "invalid_waas_session" });
    const [h, p, s] = res.body.token.split(".");
    const forged = [h, base64urlnopad.encode(new TextEncoder().encode(JSON.stringify({ ...decodeJwt(res.body.token), sub: randomUUID() }))), s].join(".");
    expect(p).not.toBe(forged.split(".")[1]);
    await expect(verifyWaasSessionToken(app.deps, t.environmentId, forged)).rejects.toMatchObject({ code: "invalid_waas_session" });

    const audit = await auditRows("waas_session.created", payload.jti!);
    expect(audit).toHaveLength(1);
    expect(audit[0].changes.after.tokenId).toBe(t.tokenId);
    expect(JSON.stringify(audit[0].changes)).not.toContain(res.body.token);
  });

  it("keeps one secret per environment and refuses other tenants", async () => {
    const again = await call(app.baseUrl, "POST", `${base()}/authenticate`, { token: t.token });
    expect(again.status, again.text).toBe(200);
    expect(await count("waas_session_keys")).toBe(1);
    const cross = await call(app.baseUrl, "POST", `${base()}/authenticate`, { token: other.token, body: {} });
    expect(cross.status).toBe(404);
    expect(cross.body.code).toBe("not_found");
  });
});

describe("POST /waas/verifyApiKey", () => {
  it("is true only for this environment's active tokens", async () => {
    const verify = (apiKey: string, b: BootstrapResult = t) =>
      call(app.baseUrl, "POST", `${base(b)}/verifyApiKey`, { token: b.token, body: { apiKey } });
    expect((await verify(t.token)).body).toMatchObject({ valid: true, verified: true });
    expect((await verify(other.token)).body).toMatchObject({ valid: false, verified: false });
    expect((await verify(t.token, other)).body).toMatchObject({ valid: false, verified: false });
    expect((await verify("garbage")).body).toMatchObject({ valid: false, verified: false });
    expect((await verify(`sgl_${"0".repeat(64)}`)).body).toMatchObject({ valid: false, verified: false });
    expect((await verify(t.memberToken)).body).toMatchObject({ valid: false, verified: false });

    // A second token of the environment (inserted directly: token management is another area's).
    const second = generateApiToken();
    const secondId = randomUUID();
    await app.db.none(
      "INSERT INTO api_tokens (id, organization_id, environment_id, token_hash, checksum) VALUES ($1, $2, $3, $4, $5)",
      [secondId, t.organizationId, t.environmentId, second.hash, second.checksum],
    );
    expect((await verify(second.raw)).body).toMatchObject({ valid: true, verified: true });
    await app.db.none("UPDATE api_tokens SET active = false WHERE id = $1", [secondId]);
    expect((await verify(second.raw)).body).toMatchObject({ valid: false, verified: false });
    await app.db.none("UPDATE api_tokens SET active = true, deleted_at = now() WHERE id = $1", [secondId]);
    expect((await verify(second.raw)).body).toMatchObject({ valid: false, verified: false });

    // No apiKey (what the published client sends): the token of the call itself is checked.
    const own = await call(app.baseUrl, "POST", `${base()}/verifyApiKey`, { token: t.token });
    expect(own.status, own.text).toBe(200);
    expect(own.body).toEqual({ valid: true, verified: true, environmentId: t.environmentId });
    const tooLong = await call(app.baseUrl, "POST", `${base()}/verifyApiKey`, { token: t.token, body: { apiKey: "x".repeat(300) } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toEqual(expect.any(String));
    const cross = await call(app.baseUrl, "POST", `${base()}/verifyApiKey`, { token: other.token, body: { apiKey: t.token } });
    expect(cross.status).toBe(404);
  });
});

describe("WaaS wallets", () => {
  it("creates an EVM wallet for the environment with a real key sealed at rest (audited)", async () => {
    const w = await createWallet({ chain: "EVM", name: "treasury" });
    expect(w.id).toMatch(UUID);
    expect(w).toMatchObject({ chain: "EVM", name: "treasury", delegatedAccess: { active: true, revokedAt: null } });
    expect(w.userId).toBeUndefined();
    expect(w.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(w.publicKey).toMatch(/^0x04[0-9a-f]{128}$/);
    expect(typeof w.delegatedAccess.grantedAt).toBe("string");
    expect(w.keyShareBackups).toEqual([]);

    const row = await app.db.one("SELECT * FROM waas_wallets WHERE id = $1", [w.id]);
    const key = openWalletKey(app.deps.sealer, row.private_key_sealed, `waas_wallet:${w.id}`);
    expect(privateKeyToAddress(bytesToHex(key))).toBe(w.address);
    expect(row.private_key_sealed).not.toContain(bytesToHex(key).slice(2));
    expect(JSON.stringify(w)).not.toContain(row.private_key_sealed);
    // Bound to its row: the sealed key does not open as another wallet's.
    expect(() => openWalletKey(app.deps.sealer, row.private_key_sealed, `waas_wallet:${randomUUID()}`)).toThrow();

    const audit = await auditRows("waas_wallet.created", w.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ resource_type: "waas_wallet", environment_id: t.environmentId });
    expect(audit[0].changes.after).toMatchObject({ chain: "EVM", address: w.address, delegatedAccess: true });
    expect(JSON.stringify(audit[0].changes)).not.toContain(row.private_key_sealed);

    const read = await call(app.baseUrl, "GET", `${base()}/${w.id}`, { token: t.token });
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual({ wallet: w });
    expect(w).toMatchObject({ walletId: w.id, accountAddress: w.address, chainName: "EVM", derivationPath: "" });
  });

  // The key is held whole by the service (docs/decisions.md): the scheme answered is the nearest the client
  // can name, so that code written against the client parses every WaaS wallet.
  it("answers a threshold scheme the published client names, over REST and gRPC", async () => {
    const userId = await insertUser();
    const created = await createWallet({ chains: ["EVM"], identifier: userId, type: "id" });
    expect(created.thresholdSignatureScheme).toBe(ThresholdSignatureScheme.TwoOfTwo);
    const client = new WaasApi(new Configuration({ basePath: `${app.baseUrl}/api/v0`, accessToken: t.token, headers: { Authorization: `Bearer ${t.token}` } }));
    const { wallet } = await client.getWaasWalletByWalletId({ environmentId: t.environmentId, walletId: created.id });
    expect(Object.values(ThresholdSignatureScheme)).toContain(wallet.thresholdSignatureScheme);
    expect(wallet).toMatchObject({ walletId: created.id, thresholdSignatureScheme: ThresholdSignatureScheme.TwoOfTwo, derivationPath: "" });

    const grpc = createClient(WaasService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const headers = { authorization: `Bearer ${t.token}` };
    const overGrpc = await grpc.getWaasWalletByWalletId({ environmentId: t.environmentId, walletId: created.id }, { headers });
    expect(overGrpc.wallet?.thresholdSignatureScheme).toBe("TWO_OF_TWO");
    const made = await grpc.createWaasWallet({ environmentId: t.environmentId, chain: "SOL" }, { headers });
    expect(made.wallets.map((w) => w.thresholdSignatureScheme)).toEqual(["TWO_OF_TWO"]);
    const revoked = await grpc.revokeDelegatedAccess({ environmentId: t.environmentId, walletIds: [made.wallet!.id] }, { headers });
    expect(revoked.wallets.map((w) => w.thresholdSignatureScheme)).toEqual(["TWO_OF_TWO"]);
  });

  it("creates a Solana wallet for a user of the environment", async () => {
    const userId = await insertUser();
    const w = await createWallet({ chain: "SOL", userId });
    expect(w).toMatchObject({ chain: "SOL", userId });
    expect(base58.decode(w.address)).toHaveLength(32);
    expect(bytesToHex(base58.decode(w.address))).toBe(w.publicKey);
  });

  it("refuses bad input and other tenants' users, storing nothing", async () => {
    const before = await count("waas_wallets");
    const auditBefore = (await app.db.one("SELECT count(*)::int AS n FROM audit_log WHERE environment_id = $1", [t.environmentId])).n;
    for (const body of [{}, { chain: "BTC" }, { chain: "EVM", userId: "nope" }, { chain: "EVM", name: "x".repeat(101) }]) {
      const res = await call(app.baseUrl, "POST", `${base()}/create`, { token: t.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toEqual(expect.any(String));
    }
    const foreignUser = await insertUser(other);
    for (const userId of [foreignUser, randomUUID()]) {
      const res = await call(app.baseUrl, "POST", `${base()}/create`, { token: t.token, body: { chain: "EVM", userId } });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("not_found");
    }
    const cross = await call(app.baseUrl, "POST", `${base()}/create`, { token: other.token, body: { chain: "EVM" } });
    expect(cross.status).toBe(404);
    expect(await count("waas_wallets")).toBe(before);
    expect((await app.db.one("SELECT count(*)::int AS n FROM audit_log WHERE environment_id = $1", [t.environmentId])).n).toBe(auditBefore);
  });

  it("reads a wallet only in its own environment", async () => {
    const w = await createWallet({ chain: "EVM" });
    for (const [path, token] of [
      [`${base()}/${w.id}`, other.token],
      [`${base()}/${w.id}`, other.memberToken],
      [`${base(other)}/${w.id}`, other.token],
      [`${base()}/${randomUUID()}`, t.token],
    ]) {
      const r = await call(app.baseUrl, "GET", path!, { token: token! });
      expect(r.status, path).toBe(404);
      expect(r.body.code).toBe("not_found");
    }
    expect((await call(app.baseUrl, "GET", `${base()}/not-a-uuid`, { token: t.token })).status).toBe(400);
    expect((await call(app.baseUrl, "GET", `${base()}/${w.id}`, { token: t.memberToken })).status).toBe(200);
  });
});

describe("delegated signing", () => {
  it("signs EIP-191 (EVM) and ed25519 (SOL) messages that verify, each recorded in the audit trail", async () => {
    const evm = await createWallet({ chain: "EVM" });
    const message = `hello from waas ${randomUUID()}`;
    const signed = await sign(evm.id, message);
    expect(signed.status, signed.text).toBe(200);
    expect(signed.body.signature).toMatch(/^0x[0-9a-f]{130}$/);
    expect(await verifyMessage({ address: evm.address, message, signature: signed.body.signature })).toBe(true);
    expect(await verifyMessage({ address: evm.address, message: `${message}!`, signature: signed.body.signature })).toBe(false);
    const audit = await auditRows("waas_wallet.message_signed", evm.id);
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit[0].changes)).not.toContain(message);

    const sol = await createWallet({ chain: "SOL" });
    const solSigned = await sign(sol.id, message);
    expect(solSigned.status, solSigned.text).toBe(200);
    const sig = base58.decode(solSigned.body.signature);
    expect(sig).toHaveLength(64);
    const bytes = new TextEncoder().encode(message);
    expect(ed25519.verify(sig, bytes, hexToBytes(sol.publicKey))).toBe(true);
    expect(ed25519.verify(sig, new TextEncoder().encode(`${message}!`), hexToBytes(sol.publicKey))).toBe(false);
  });

  it("refuses a SOL message whose bytes are a transaction's message (422 message_is_transaction), signing nothing", async () => {
    const sol = await createWallet({ chain: "SOL" });
    // A legacy transaction (two signers, a call of a program) whose every byte is printable-safe ASCII, so that
    // it travels as text: a signature over it is the transaction's.
    const key = (b: number) => Buffer.alloc(32, b);
    const ix = Buffer.from([2, 1, 1, 5, ...Buffer.from("hello")]);
    const tx = Buffer.concat([Buffer.from([2, 1, 1, 3]), key(0x41), key(0x42), key(0x43), key(0x07), Buffer.from([1]), ix]);
    const refused = await sign(sol.id, tx.toString("latin1"));
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body).toMatchObject({ code: "message_is_transaction" });
    expect(await auditRows("waas_wallet.message_signed", sol.id)).toHaveLength(0);
  });

  it("refuses wallets created without delegated access, empty messages and other tenants", async () => {
    const w = await createWallet({ chain: "EVM", delegatedAccess: false });
    expect(w.delegatedAccess).toEqual({ active: false, grantedAt: null, revokedAt: null });
    const res = await sign(w.id, "hi");
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: "delegated_access_not_granted", error: expect.any(String) });
    const usable = await createWallet({ chain: "EVM" });
    expect((await sign(usable.id, "")).status).toBe(400);
    const cross = await call(app.baseUrl, "POST", `${base()}/${usable.id}/delegatedAccess/signMessage`, { token: other.token, body: { message: "x" } });
    expect(cross.status).toBe(404);
    expect((await sign(usable.id, "x", other)).status).toBe(404);
    expect(await auditRows("waas_wallet.message_signed", usable.id)).toHaveLength(0);
  });

  it("DELETE .../delegatedAccess revokes one wallet: signing then answers 422", async () => {
    const w = await createWallet({ chain: "SOL" });
    expect((await sign(w.id, "before")).status).toBe(200);
    const cross = await call(app.baseUrl, "DELETE", `${base()}/${w.id}/delegatedAccess`, { token: other.token });
    expect(cross.status).toBe(404);
    expect((await sign(w.id, "still")).status).toBe(200);

    const del = await call(app.baseUrl, "DELETE", `${base()}/${w.id}/delegatedAccess`, { token: t.token });
    expect(del.status, del.text).toBe(204);
    expect(del.text).toBe("");
    const res = await sign(w.id, "after");
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("delegated_access_revoked");
    const read = await call(app.baseUrl, "GET", `${base()}/${w.id}`, { token: t.token });
    expect(read.body.wallet.delegatedAccess.active).toBe(false);
    expect(typeof read.body.wallet.delegatedAccess.revokedAt).toBe("string");
    expect(await auditRows("waas_wallet.delegated_access_revoked", w.id)).toHaveLength(1);
    // Idempotent: a second revocation changes and records nothing.
    expect((await call(app.baseUrl, "DELETE", `${base()}/${w.id}/delegatedAccess`, { token: t.token })).status).toBe(204);
    expect(await auditRows("waas_wallet.delegated_access_revoked", w.id)).toHaveLength(1);
    expect((await call(app.baseUrl, "DELETE", `${base()}/${randomUUID()}/delegatedAccess`, { token: t.token })).status).toBe(404);
  });

  it("POST .../delegatedAccess/revoke revokes named wallets or a user's wallets; bad input changes nothing", async () => {
    const userId = await insertUser();
    const u1 = await createWallet({ chain: "EVM", userId });
    const u2 = await createWallet({ chain: "SOL", userId });
    const env = await createWallet({ chain: "EVM" });
    const named = await createWallet({ chain: "EVM" });
    const path = `${base()}/delegatedAccess/revoke`;

    const empty = await call(app.baseUrl, "POST", path, { token: t.token, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe("wallet_ids_or_user_id_required");
    const unknown = await call(app.baseUrl, "POST", path, { token: t.token, body: { walletIds: [named.id, randomUUID()] } });
    expect(unknown.status).toBe(404);
    const foreign = await createWallet({ chain: "EVM" }, other);
    const crossIds = await call(app.baseUrl, "POST", path, { token: t.token, body: { walletIds: [named.id, foreign.id] } });
    expect(crossIds.status).toBe(404);
    const cross = await call(app.baseUrl, "POST", path, { token: other.token, body: { walletIds: [named.id] } });
    expect(cross.status).toBe(404);
    expect((await call(app.baseUrl, "POST", path, { token: t.token, body: { walletIds: ["x"] } })).status).toBe(400);
    expect((await sign(named.id, "still active")).status).toBe(200);
    expect((await sign(foreign.id, "still active", other)).status).toBe(200);

    const byUser = await call(app.baseUrl, "POST", path, { token: t.token, body: { userId } });
    expect(byUser.status, byUser.text).toBe(200);
    expect(byUser.body.revokedCount).toBe(2);
    expect(byUser.body.wallets.map((w: any) => w.id).sort()).toEqual([u1.id, u2.id].sort());
    expect(byUser.body.wallets.every((w: any) => w.delegatedAccess.active === false)).toBe(true);
    expect((await sign(u1.id, "x")).body.code).toBe("delegated_access_revoked");
    expect((await sign(u2.id, "x")).body.code).toBe("delegated_access_revoked");
    expect((await sign(env.id, "x")).status).toBe(200);

    const byIds = await call(app.baseUrl, "POST", path, { token: t.token, body: { walletIds: [named.id, u1.id] } });
    expect(byIds.status).toBe(200);
    expect(byIds.body.revokedCount).toBe(1);
    expect((await sign(named.id, "x")).status).toBe(422);
    expect(await auditRows("waas_wallet.delegated_access_revoked", named.id)).toHaveLength(1);
    expect(await auditRows("waas_wallet.delegated_access_revoked", u1.id)).toHaveLength(1);
  });
});

describe("WaaS policies", () => {
  const path = (b: BootstrapResult = t) => `${base(b)}/policies`;
  const policyCall = (verb: string, body?: unknown, b: BootstrapResult = t, token = b.token) => call(app.baseUrl, verb, path(b), { token, body });
  const SOL_RECIPIENT = "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T";
  const rule = (extra: Record<string, unknown> = {}) => ({ name: "r", ruleType: "deny", chain: "EVM", ...extra });

  it("GET, PUT and DELETE answer 404 while there is no policy; invalid rules store nothing", async () => {
    const requests: [string, unknown][] = [
      ["GET", undefined],
      ["PUT", { rulesToUpdate: [rule({ ruleId: randomUUID() })] }],
      ["PUT", { rules: [rule()] }],
      ["DELETE", { ruleIdsToDelete: [randomUUID()] }],
    ];
    for (const [verb, body] of requests) {
      const res = await policyCall(verb, body);
      expect(res.status, verb).toBe(404);
      expect(res.body.code).toBe("not_found");
    }
    for (const body of [
      {},
      { rulesToAdd: [] },
      { rulesToAdd: [rule({ ruleType: "maybe" })] },
      { rulesToAdd: [{ name: "a", chain: "EVM" }] },
      { rulesToAdd: [rule({ chain: "BTC" })] },
      { rulesToAdd: [{ name: "a", ruleType: "deny" }] },
      { rules: [{ name: "a", type: "deny", chains: ["EVM", "SOL"] }] },
      { rulesToAdd: [rule({ valueLimit: { maxPerCall: "ten" } })] },
      { rulesToAdd: [rule({ methods: ["drain"] })] },
      { rulesToAdd: [rule({ addresses: ["not-an-address"] })] },
      { rulesToAdd: [rule({ chain: "SVM", addresses: [EVM_RECIPIENT] })] },
      { rulesToAdd: [rule({ name: "a" }), rule({ name: "A", chain: "SVM" })] },
      // Conditions the service cannot enforce are refused, not ignored.
      { rulesToAdd: [rule({ ruleType: "allow", functionName: "transfer" })] },
      { rulesToAdd: [rule({ ruleType: "allow", chainIds: [0] })] },
      { rulesToAdd: [rule({ ruleType: "allow", valueLimit: { maxPerCall: "1", totalLimit: "10" } })] },
      { rulesToAdd: [rule({ operationRestrictions: { blockExport: true } })] },
      { rulesToAdd: [rule()], rules: [rule()] },
    ]) {
      const res = await policyCall("POST", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toEqual(expect.any(String));
    }
    expect(await count("waas_policies")).toBe(0);
    // Rule ids are required to delete: no request deletes every rule by saying nothing.
    for (const body of [undefined, {}, { ruleIdsToDelete: [] }]) expect((await policyCall("DELETE", body)).status).toBe(400);
  });

  it("adds rules (creating the policy), updates and deletes them by ruleId, and signing obeys them", async () => {
    const evm = await createWallet({ chain: "EVM" });
    const sol = await createWallet({ chain: "SOL" });

    const created = await policyCall("POST", {
      rulesToAdd: [{ name: "no solana messages", ruleType: "deny", chain: "SVM", methods: ["signMessage"] }],
    });
    expect(created.status, created.text).toBe(201);
    const policyId = created.body.policyId;
    expect(policyId).toMatch(UUID);
    expect(created.body).toMatchObject({ projectEnvironmentId: t.environmentId, message: expect.any(String) });
    expect(new Date(created.body.createdAt).toISOString()).toBe(created.body.createdAt);
    expect(created.body.policyContent).toEqual([
      { ruleId: expect.stringMatching(UUID), name: "no solana messages", ruleType: "deny", chain: "SVM", chainIds: [], addresses: [], methods: ["signMessage"] },
    ]);
    const denyId = created.body.policyContent[0].ruleId;
    expect(await auditRows("waas_policy.created", policyId)).toHaveLength(1);

    // A deny rule blocks signing on its chain only.
    const denied = await sign(sol.id, "x");
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: "policy_denied", payload: { rule: "no solana messages", ruleId: denyId } });
    expect((await sign(evm.id, "x")).status).toBe(200);

    // POST again adds to the same policy; Sigil's earlier names (rules, type, chains, maxValue) still work.
    const added = await policyCall("POST", {
      rules: [{ name: "payouts", type: "allow", chains: ["EVM"], addresses: [EVM_RECIPIENT.toLowerCase()], maxValue: "0.5" }],
    });
    expect(added.status, added.text).toBe(201);
    expect(added.body.policyId).toBe(policyId);
    expect(added.body.policyContent).toHaveLength(2);
    expect(added.body.policyContent[1]).toEqual({
      ruleId: expect.stringMatching(UUID),
      name: "payouts",
      ruleType: "allow",
      chain: "EVM",
      chainIds: [],
      addresses: [EVM_RECIPIENT],
      valueLimit: { maxPerCall: "0.5" },
      methods: [],
    });
    const payoutsId = added.body.policyContent[1].ruleId;
    expect(await auditRows("waas_policy.updated", policyId)).toHaveLength(1);
    // A message carries no recipient or value, so the EVM allow rule covers it.
    expect((await sign(evm.id, "x")).status).toBe(200);

    const read = await policyCall("GET");
    expect(read.status).toBe(200);
    expect({ ...read.body, message: "" }).toEqual({ ...added.body, message: "" });
    const unchanged = async () => expect((await policyCall("GET")).body.policyContent).toEqual(read.body.policyContent);

    // A duplicate name is refused and changes nothing.
    const dup = await policyCall("POST", { rulesToAdd: [rule({ name: "PAYOUTS" })] });
    expect(dup.status).toBe(400);
    expect(dup.body.code).toBe("duplicate_rule_name");
    await unchanged();

    // Another tenant sees no policy here, and cannot change this one.
    expect((await policyCall("GET", undefined, other)).status).toBe(404);
    expect((await policyCall("GET", undefined, t, other.token)).status).toBe(404);
    expect((await policyCall("PUT", { rulesToUpdate: [rule({ ruleId: payoutsId })] }, t, other.token)).status).toBe(404);
    expect((await policyCall("DELETE", { ruleIdsToDelete: [payoutsId] }, t, other.token)).status).toBe(404);
    expect((await policyCall("DELETE", { ruleIdsToDelete: [payoutsId] }, other)).status).toBe(404);
    await unchanged();

    // Updating by ruleId replaces that rule in place and keeps its id.
    const updated = await policyCall("PUT", {
      rulesToUpdate: [{ ruleId: denyId, name: "solana allowed", ruleType: "allow", chain: "SVM", addresses: [SOL_RECIPIENT] }],
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.policyContent.map((r: any) => [r.ruleId, r.name, r.ruleType, r.chain])).toEqual([
      [denyId, "solana allowed", "allow", "SVM"],
      [payoutsId, "payouts", "allow", "EVM"],
    ]);
    expect(updated.body.policyContent[0].addresses).toEqual([SOL_RECIPIENT]);
    expect((await sign(sol.id, "x")).status).toBe(200);
    const afterUpdate = (await policyCall("GET")).body.policyContent;

    // Bad updates are refused and change nothing: unknown ruleId (404), no ruleId, bad address (400).
    expect((await policyCall("PUT", { rulesToUpdate: [rule({ ruleId: randomUUID() })] })).status).toBe(404);
    expect((await policyCall("PUT", { rulesToUpdate: [rule()] })).status).toBe(400);
    expect((await policyCall("PUT", { rulesToUpdate: [rule({ ruleId: payoutsId, addresses: ["zz"] })] })).status).toBe(400);
    expect((await policyCall("PUT", { rulesToUpdate: [rule({ ruleId: payoutsId, name: "Solana Allowed" })] })).status).toBe(400);
    expect((await policyCall("GET")).body.policyContent).toEqual(afterUpdate);

    // Deleting by ruleId answers 200 with what remains; an unknown ruleId is 404 and deletes nothing.
    expect((await policyCall("DELETE", { ruleIdsToDelete: [payoutsId, randomUUID()] })).status).toBe(404);
    expect((await policyCall("GET")).body.policyContent).toEqual(afterUpdate);
    const del = await policyCall("DELETE", { ruleIdsToDelete: [payoutsId] });
    expect(del.status, del.text).toBe(200);
    expect(del.headers.get("content-type")).toMatch(/application\/json/);
    expect(del.body.policyContent.map((r: any) => r.ruleId)).toEqual([denyId]);
    // Only a SOL allow rule is left: EVM requests match no allow rule.
    expect((await sign(evm.id, "x")).body.code).toBe("policy_denied");

    // Deleting the last rule removes the policy.
    const last = await policyCall("DELETE", { ruleIdsToDelete: [denyId] });
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ policyId, policyContent: [] });
    expect(await auditRows("waas_policy.deleted", policyId)).toHaveLength(1);
    expect((await policyCall("GET")).status).toBe(404);
    expect((await sign(evm.id, "x")).status).toBe(200);
  });

  it("PUT with rules (Sigil's earlier form) replaces every rule", async () => {
    const b = await app.bootstrap({ ownerEmail: `waas-put-${randomUUID()}@example.com` });
    const first = await policyCall("POST", { rulesToAdd: [rule({ name: "a" }), rule({ name: "b" })] }, b);
    expect(first.status, first.text).toBe(201);
    const replaced = await policyCall("PUT", { rules: [{ name: "c", type: "allow", chains: ["SOL"] }] }, b);
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.policyContent).toEqual([{ ruleId: expect.stringMatching(UUID), name: "c", ruleType: "allow", chain: "SVM", chainIds: [], addresses: [], methods: [] }]);
    expect((await policyCall("PUT", { rules: [] }, b)).status).toBe(400);
  });

  it("evaluates recipients and values for requests that carry them", () => {
    const input = { ruleId: "", addresses: [] as string[], maxPerCall: "", methods: [] as string[], unsupported: [] };
    const rules = validateRules([
      { ...input, name: "block", ruleType: "deny", chains: ["EVM"], maxPerCall: "10", methods: ["signTransaction"] },
      { ...input, name: "payouts", ruleType: "allow", chains: ["EVM"], addresses: [EVM_RECIPIENT] },
    ]);
    const tx = (to: string, value: string) => evaluatePolicy(rules, { chain: "EVM", method: "signTransaction", recipients: [to], value });
    expect(tx(EVM_RECIPIENT.toLowerCase(), "1")).toMatchObject({ allowed: true, rule: "payouts" });
    expect(tx(EVM_RECIPIENT, "10.000001")).toMatchObject({ allowed: false, rule: "block" });
    expect(tx("0x0000000000000000000000000000000000000001", "1").allowed).toBe(false);
    expect(evaluatePolicy(rules, { chain: "EVM", method: "signMessage" }).allowed).toBe(true);
    expect(evaluatePolicy(rules, { chain: "SOL", method: "signMessage" }).allowed).toBe(false);
    expect(evaluatePolicy(null, { chain: "SOL", method: "signMessage" }).allowed).toBe(true);
  });
});

describe("key share backup locations", () => {
  it("records locations (201, audited), refreshes repeats and shows them on the wallet", async () => {
    const w = await createWallet({ chain: "EVM" });
    const path = `${base()}/${w.id}/keyShares/backup/locations`;
    const res = await call(app.baseUrl, "POST", path, {
      token: t.token,
      body: { locations: [{ location: "service" }, { location: "cloudDrive", externalKeyShareId: "share-1" }] },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.walletId).toBe(w.id);
    expect(res.body.locationsWithKeyShares).toHaveLength(2);
    expect(res.body.locationsWithKeyShares[1]).toMatchObject({ location: "cloudDrive", externalKeyShareId: "share-1" });
    for (const b of res.body.locationsWithKeyShares) expect(await auditRows("waas_key_share_backup.created", b.keyShareId)).toHaveLength(1);

    const again = await call(app.baseUrl, "POST", path, { token: t.token, body: { locations: [{ location: "service" }] } });
    expect(again.status).toBe(201);
    expect(again.body.locationsWithKeyShares[0].keyShareId).toBe(res.body.locationsWithKeyShares[0].keyShareId);
    expect(await auditRows("waas_key_share_backup.updated", res.body.locationsWithKeyShares[0].keyShareId)).toHaveLength(1);

    const read = await call(app.baseUrl, "GET", `${base()}/${w.id}`, { token: t.token });
    expect(read.body.wallet.keyShareBackups.map((b: any) => b.location).sort()).toEqual(["cloudDrive", "service"]);
  });

  it("answers every location with the id its key share has there, through the published client and over gRPC", async () => {
    const userId = await insertUser();
    const w = await createWallet({ chain: "EVM", identifier: userId, type: "id" });
    const client = new WaasApi(new Configuration({ basePath: `${app.baseUrl}/api/v0`, accessToken: t.token, headers: { Authorization: `Bearer ${t.token}` } }));
    const request = {
      environmentId: t.environmentId,
      walletId: w.id,
      backupKeySharesToLocationsWithUserIdRequest: {
        userId,
        locations: [{ location: WaasBackupOptionsEnum.Dynamic }, { location: WaasBackupOptionsEnum.GoogleDrive }, { location: WaasBackupOptionsEnum.External, externalKeyShareId: "vault-7" }],
      },
    };
    const res = await client.backupKeySharesToLocationsForPregen(request);
    expect(res.walletId).toBe(w.id);
    // A location that names no id of its own holds the share under the backup record's id.
    const [dynamic, drive, external] = res.locationsWithKeyShares;
    expect(dynamic).toEqual({ location: "dynamic", keyShareId: expect.stringMatching(UUID), externalKeyShareId: dynamic!.keyShareId });
    expect(drive).toEqual({ location: "googleDrive", keyShareId: expect.stringMatching(UUID), externalKeyShareId: drive!.keyShareId });
    expect(external).toEqual({ location: "external", keyShareId: expect.stringMatching(UUID), externalKeyShareId: "vault-7" });
    // Recording again refreshes the same records, under the same ids.
    expect((await client.backupKeySharesToLocationsForPregen(request)).locationsWithKeyShares).toEqual(res.locationsWithKeyShares);
    const read = await call(app.baseUrl, "GET", `${base()}/${w.id}`, { token: t.token });
    expect(read.body.wallet.keyShareBackups.find((b: any) => b.location === "dynamic").externalKeyShareId).toBe(dynamic!.keyShareId);

    const grpc = createClient(WaasService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const overGrpc = await grpc.backupKeySharesToLocationsForPregen(
      { environmentId: t.environmentId, walletId: w.id, locations: [{ location: "dynamic" }] },
      { headers: { authorization: `Bearer ${t.token}` } },
    );
    expect(overGrpc.locationsWithKeyShares[0]).toMatchObject({ keyShareId: dynamic!.keyShareId, externalKeyShareId: dynamic!.keyShareId });
  });

  it("refuses bad locations, unknown wallets and other tenants, storing nothing", async () => {
    const w = await createWallet({ chain: "SOL" });
    const path = `${base()}/${w.id}/keyShares/backup/locations`;
    const before = await count("waas_key_share_backups");
    for (const body of [{}, { locations: [] }, { locations: [{ location: "moon" }] }, { locations: Array(11).fill({ location: "service" }) }]) {
      const res = await call(app.baseUrl, "POST", path, { token: t.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const body = { locations: [{ location: "service" }] };
    expect((await call(app.baseUrl, "POST", `${base()}/${randomUUID()}/keyShares/backup/locations`, { token: t.token, body })).status).toBe(404);
    expect((await call(app.baseUrl, "POST", path, { token: other.token, body })).status).toBe(404);
    expect((await call(app.baseUrl, "POST", path, { token: other.memberToken, body })).status).toBe(404);
    expect((await call(app.baseUrl, "POST", `${base(other)}/${w.id}/keyShares/backup/locations`, { token: other.token, body })).status).toBe(404);
    expect(await count("waas_key_share_backups")).toBe(before);
  });
});

describe("over Connect and gRPC", () => {
  it("creates a wallet over gRPC, signs over Connect and verifies an API key", async () => {
    const headers = { authorization: `Bearer ${t.token}` };
    const grpc = createClient(WaasService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const created = await grpc.createWaasWallet({ environmentId: t.environmentId, chain: "EVM", name: "grpc" }, { headers });
    expect(created.wallet?.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(created.wallet?.delegatedAccess?.active).toBe(true);

    const connect = createClient(WaasService, createConnectTransport({ baseUrl: app.baseUrl, httpVersion: "1.1" }));
    const { signature } = await connect.delegatedSignMessage(
      { environmentId: t.environmentId, walletId: created.wallet!.id, message: "over connect" },
      { headers },
    );
    expect(await verifyMessage({ address: created.wallet!.address as `0x${string}`, message: "over connect", signature: signature as `0x${string}` })).toBe(true);

    const verified = await grpc.verifyApiKey({ environmentId: t.environmentId, apiKey: t.token }, { headers });
    expect(verified.valid).toBe(true);
    await expect(
      grpc.getWaasWalletByWalletId({ environmentId: t.environmentId, walletId: created.wallet!.id }, { headers: { authorization: `Bearer ${other.token}` } }),
    ).rejects.toMatchObject({ code: 5 /* NotFound */ });
  });
});

describe("seed helper for the management matrix", () => {
  it("seeds a WaaS wallet and an encryption key that the tenant's token reaches", async () => {
    const ids = await seedWaas(app, t);
    expect((await call(app.baseUrl, "GET", `${base()}/${ids.wallet_id}`, { token: t.memberToken })).status).toBe(200);
    expect((await call(app.baseUrl, "GET", `${base()}/delegatedAccess/encryptionPublicKeys/${ids.key_id}`, { token: t.memberToken })).status).toBe(200);
    expect((await sign(ids.wallet_id, "seeded")).status).toBe(200);
  });
});
