import { randomUUID } from "node:crypto";
import { Configuration, EmbeddedWalletAuthType, EmbeddedWalletChainEnum, EmbeddedWalletProviderEnum, SDKApi } from "@dynamic-labs/sdk-api";
import { p256 } from "@noble/curves/nist.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { base64urlnopad } from "@scure/base";
import { compactDecrypt, createLocalJWKSet, decodeJwt, decodeProtectedHeader, importJWK, jwtVerify } from "jose";
import { privateKeyToAddress } from "viem/accounts";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_VERIFICATION_SETTINGS } from "../../src/config.js";
import { startSmtpPeer } from "./support/code-peers.js";
import { sessionKeyJwk, verifySessionKeySignature } from "../../src/domain/embedded-wallets/sdk-session-keys.js";
import { SdkEmbeddedWalletsService } from "../../src/gen/sigil/embedded_wallets/v0/sdk_embedded_wallets_service_pb.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";
import { SoftwareAuthenticator } from "../support/webauthn-authenticator.js";

/**
 * The signed-in user's own V1 embedded wallets through the published client (SDKApi, unchanged): create,
 * claim a pregenerated one, session keys, signed delete and create-account requests, soft delete and
 * restore, export, the auth token; and the attacks (another user's wallet, another environment's token,
 * replayed / expired / tampered signed bodies, a replayed export activity, concurrent claims).
 */

const ORIGIN = "https://wallet.example.com";
let app: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let t: BootstrapResult;
let other: BootstrapResult;

beforeAll(async () => {
  smtp = await startSmtpPeer();
  app = await startTestApp({ verifications: { ...DEFAULT_VERIFICATION_SETTINGS, smtpUrl: smtp.url, mailFrom: "Acme <wallets@acme.example>" } });
  t = await app.bootstrap({ ownerEmail: `ew-${randomUUID()}@example.com` });
  other = await app.bootstrap({ ownerEmail: `ew-${randomUUID()}@example.com` });
  const o = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/origins`, { token: t.token, body: { origin: ORIGIN } });
  expect(o.status, o.text).toBeLessThan(300);
}, 60_000);
afterAll(async () => {
  await app?.stop();
  await smtp?.close();
});

/** A device's session key: a P-256 key pair (as WebCrypto makes them), registered for the session. */
async function deviceKey(jwt: string, environmentId = t.environmentId) {
  const secretKey = p256.utils.randomSecretKey();
  const publicKey = bytesToHex(p256.getPublicKey(secretKey, true));
  const registered = await sdkFor(app.baseUrl, jwt).registerSessionKey({ environmentId, registerSessionKeyRequest: { publicKey } });
  return { secretKey, publicKey, registered };
}

/** A device's P-256 private key as jose imports it, to open what was encrypted to its public key. */
const decryptionKey = (secretKey: Uint8Array) =>
  importJWK({ ...sessionKeyJwk(bytesToHex(p256.getPublicKey(secretKey, true))), d: base64urlnopad.encode(secretKey) }, "ECDH-ES");

/** The client's signed request: the body text as answered, stamped with the session key (Turnkey API-key stamp). */
function stamped(body: unknown, key: { secretKey: Uint8Array; publicKey: string }) {
  const text = JSON.stringify(body);
  const signature = bytesToHex(p256.sign(new TextEncoder().encode(text), key.secretKey, { format: "der" }));
  const stampHeaderValue = base64urlnopad.encode(
    new TextEncoder().encode(JSON.stringify({ publicKey: key.publicKey, scheme: "SIGNATURE_SCHEME_TK_API_P256", signature })),
  );
  return { body: text, stamp: { stampHeaderName: "X-Stamp", stampHeaderValue }, url: "" };
}

async function userWithWallets(chains = ["EVM"]) {
  const s = await signInAs(app, t.environmentId);
  const created = await sdkFor(app.baseUrl, s.jwt).createEmbeddedWallets({
    environmentId: t.environmentId,
    createEmbeddedWalletsRequest: { embeddedWallets: [{ chains: chains as EmbeddedWalletChainEnum[], embeddedWalletProvider: EmbeddedWalletProviderEnum.Turnkey }] },
  });
  const wallets = created.user.verifiedCredentials.filter((c) => c.walletProvider === "embeddedWallet");
  return { ...s, created, wallets, sdk: sdkFor(app.baseUrl, s.jwt) };
}

describe("create and claim", () => {
  it("creates one embedded wallet per chain for the caller, answers new tokens listing them, refuses a second on a chain", async () => {
    const u = await userWithWallets(["EVM", "SOL"]);
    expect(u.wallets.map((w) => w.chain).sort()).toEqual(["EVM", "SOL"]);
    expect(u.created.jwt).toBeTruthy();
    const claims = decodeJwt(u.created.jwt!) as { verified_credentials: { address?: string }[] };
    for (const w of u.wallets) expect(claims.verified_credentials.some((c) => c.address === w.address)).toBe(true);
    const again = await refused(u.sdk.createEmbeddedWallets({ environmentId: t.environmentId, createEmbeddedWalletsRequest: { embeddedWallets: [{ chain: EmbeddedWalletChainEnum.Evm, embeddedWalletProvider: EmbeddedWalletProviderEnum.Turnkey }] } }));
    expect(again.status).toBe(422);
    expect(again.body.code).toBe("embedded_wallet_already_exists");
  });

  it("claims a wallet pregenerated for the caller's e-mail once; two concurrent claims: exactly one wins; another user's is 404", async () => {
    const email = `pre-${randomUUID()}@example.com`;
    const pre = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/embeddedWallets`, { token: t.token, body: { identifier: email, type: "email", chain: "EVM" } });
    expect(pre.status, pre.text).toBe(201);
    const s = await signInAs(app, t.environmentId, email);
    const { id: walletId } = await app.db.one("SELECT id FROM wallets WHERE user_id = $1 AND pregenerated_at IS NOT NULL", [s.userId]);
    const stranger = await signInAs(app, t.environmentId);
    const theirs = await refused(sdkFor(app.baseUrl, stranger.jwt).claimEmbeddedWallet({ environmentId: t.environmentId, embeddedWalletPasscodeClaimRequest: { walletId } }));
    expect(theirs.status).toBe(404);
    const sdk = sdkFor(app.baseUrl, s.jwt);
    const claim = () => sdk.claimEmbeddedWallet({ environmentId: t.environmentId, embeddedWalletPasscodeClaimRequest: { walletId } });
    const results = await Promise.allSettled([claim(), claim()]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const lost = await refused(claim());
    expect(lost.status).toBe(409);
    expect(lost.body.code).toBe("embedded_wallet_already_claimed");
    const rows = await app.db.one("SELECT claimed_at FROM wallets WHERE id = $1", [walletId]);
    expect(rows.claimed_at).toBeInstanceOf(Date);
  });

  it("registers the session key sent with the wallets (sessionPublicKey)", async () => {
    const s = await signInAs(app, t.environmentId);
    const sk = p256.utils.randomSecretKey();
    const sessionPublicKey = bytesToHex(p256.getPublicKey(sk, true));
    await sdkFor(app.baseUrl, s.jwt).createEmbeddedWallets({
      environmentId: t.environmentId,
      createEmbeddedWalletsRequest: { embeddedWallets: [{ chain: EmbeddedWalletChainEnum.Evm, embeddedWalletProvider: EmbeddedWalletProviderEnum.Turnkey, sessionPublicKey }] },
    });
    const payload = new TextEncoder().encode("hello");
    const signature = bytesToHex(p256.sign(payload, sk, { format: "der" }));
    expect(await verifySessionKeySignature(app.deps, { environmentId: t.environmentId, userId: s.userId, sessionKeyPublicKey: sessionPublicKey, payload, signature })).toBe(true);
  });

  it("refuses another environment's JWT", async () => {
    const s = await signInAs(app, other.environmentId);
    const r = await refused(sdkFor(app.baseUrl, s.jwt).createEmbeddedWallets({ environmentId: t.environmentId, createEmbeddedWalletsRequest: { embeddedWallets: [{ chain: EmbeddedWalletChainEnum.Evm, embeddedWalletProvider: EmbeddedWalletProviderEnum.Turnkey }] } }));
    expect(r.status).toBe(401);
  });
});

describe("signed requests: delete and create account", () => {
  it("deletes with a body signed by the session key; replayed, expired, tampered and foreign-key bodies are refused", async () => {
    const u = await userWithWallets();
    const key = await deviceKey(u.jwt);
    expect(key.registered.publicKey).toBe(key.publicKey);
    const walletId = u.wallets[0].id;
    const body = await u.sdk.getEmbeddedWalletsDeleteRequest({ environmentId: t.environmentId, walletId });
    const walletRow = await app.db.one("SELECT id FROM wallets WHERE credential_id = $1", [walletId]);
    expect(body).toMatchObject({ organizationId: t.environmentId, type: "ACTIVITY_TYPE_DELETE_WALLETS", parameters: { walletIds: [walletRow.id] } });
    const raw = { organizationId: body.organizationId, parameters: { walletIds: body.parameters.walletIds, deleteWithoutExport: true }, timestampMs: body.timestampMs, type: body.type };

    // Tampered: the stamp was made over another body.
    const signed = stamped(raw, key);
    const tampered = { ...signed, body: signed.body.replace(walletRow.id, randomUUID()) };
    expect((await refused(u.sdk.deleteEmbeddedWallets({ environmentId: t.environmentId, deleteEmbeddedWalletsRequest: { turnkeySignedRequest: tampered } }))).status).toBe(403);
    // Another user's session key signs nothing for this user.
    const stranger = await signInAs(app, t.environmentId);
    const strangerKey = await deviceKey(stranger.jwt);
    const foreign = await refused(u.sdk.deleteEmbeddedWallets({ environmentId: t.environmentId, deleteEmbeddedWalletsRequest: { turnkeySignedRequest: stamped(raw, strangerKey) } }));
    expect(foreign.body.code).toBe("invalid_stamp");
    // Expired.
    const old = stamped({ ...raw, timestampMs: String(Date.now() - 11 * 60_000) }, key);
    expect((await refused(u.sdk.deleteEmbeddedWallets({ environmentId: t.environmentId, deleteEmbeddedWalletsRequest: { turnkeySignedRequest: old } }))).body.code).toBe("signed_request_expired");

    await u.sdk.deleteEmbeddedWallets({ environmentId: t.environmentId, deleteEmbeddedWalletsRequest: { turnkeySignedRequest: signed } });
    const replay = await refused(u.sdk.deleteEmbeddedWallets({ environmentId: t.environmentId, deleteEmbeddedWalletsRequest: { turnkeySignedRequest: signed } }));
    expect(replay.status).toBe(409);
    expect(replay.body.code).toBe("signed_request_replayed");
    expect((await app.db.one("SELECT deleted_at FROM wallets WHERE id = $1", [walletRow.id])).deleted_at).toBeInstanceOf(Date);

    // Restored: the same wallet (same address) is back.
    await u.sdk.restoreEmbeddedWallet({ environmentId: t.environmentId, walletId });
    expect((await app.db.one("SELECT deleted_at FROM wallets WHERE id = $1", [walletRow.id])).deleted_at).toBeNull();
    expect((await refused(u.sdk.restoreEmbeddedWallet({ environmentId: t.environmentId, walletId }))).status).toBe(409);
  });

  it("the legacy delete request names all the caller's wallets; a key of a revoked session no longer signs", async () => {
    const u = await userWithWallets(["EVM", "SOL"]);
    const key = await deviceKey(u.jwt);
    const body = await u.sdk.legacyGetEmbeddedWalletsDeleteRequest({ environmentId: t.environmentId });
    const ids = await app.db.map("SELECT id FROM wallets WHERE user_id = $1 AND deleted_at IS NULL", [u.userId], (r: { id: string }) => r.id);
    expect([...body.parameters.walletIds].sort()).toEqual(ids.sort());
    // A second session of the same user signs, then is revoked: its key stops counting.
    const second = await signInAs(app, t.environmentId, u.email);
    const secondKey = await deviceKey(second.jwt);
    await sdkFor(app.baseUrl, second.jwt).revokeSession({ environmentId: t.environmentId });
    const raw = { organizationId: body.organizationId, parameters: { walletIds: body.parameters.walletIds, deleteWithoutExport: true }, timestampMs: body.timestampMs, type: body.type };
    const revoked = await refused(u.sdk.deleteEmbeddedWallets({ environmentId: t.environmentId, deleteEmbeddedWalletsRequest: { turnkeySignedRequest: stamped(raw, secondKey) } }));
    expect(revoked.body.code).toBe("invalid_stamp");
    await u.sdk.deleteEmbeddedWallets({ environmentId: t.environmentId, deleteEmbeddedWalletsRequest: { turnkeySignedRequest: stamped(raw, key) } });
    expect((await app.db.one("SELECT count(*)::int AS n FROM wallets WHERE user_id = $1 AND deleted_at IS NULL", [u.userId])).n).toBe(0);
  });

  it("adds an account on another chain with a signed create-account body", async () => {
    const u = await userWithWallets(["EVM"]);
    const key = await deviceKey(u.jwt);
    const body = await u.sdk.getCreateWalletAccountRequest({ environmentId: t.environmentId, chain: EmbeddedWalletChainEnum.Sol });
    expect(body.type).toBe("ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS");
    expect(body.parameters.accounts[0].addressFormat).toBe("ADDRESS_FORMAT_SOLANA");
    const raw = { organizationId: body.organizationId, parameters: { walletId: body.parameters.walletId, accounts: body.parameters.accounts }, timestampMs: body.timestampMs, type: body.type };
    const res = await u.sdk.createWalletAccount({ environmentId: t.environmentId, createWalletAccountRequest: { turnkeySignedRequest: stamped(raw, key) } });
    expect(res.user.verifiedCredentials.filter((c) => c.walletProvider === "embeddedWallet")).toHaveLength(2);
  });

  it("soft-deletes one wallet; another user's wallet is 404", async () => {
    const u = await userWithWallets();
    const stranger = await signInAs(app, t.environmentId);
    expect((await refused(sdkFor(app.baseUrl, stranger.jwt).softDeleteEmbeddedWallet({ environmentId: t.environmentId, walletId: u.wallets[0].id }))).status).toBe(404);
    expect((await refused(sdkFor(app.baseUrl, stranger.jwt).getEmbeddedWalletsDeleteRequest({ environmentId: t.environmentId, walletId: u.wallets[0].id }))).status).toBe(404);
    await u.sdk.softDeleteEmbeddedWallet({ environmentId: t.environmentId, walletId: u.wallets[0].id });
    expect((await refused(u.sdk.softDeleteEmbeddedWallet({ environmentId: t.environmentId, walletId: u.wallets[0].id }))).status).toBe(404);
  });
});

describe("export and auth token", () => {
  it("exports the key as a JWE to the session key, once per activity; decrypts to the wallet's key", async () => {
    const u = await userWithWallets();
    const noKey = await refused(u.sdk.embeddedWalletExport({ environmentId: t.environmentId, walletId: u.wallets[0].id, activityId: randomUUID() }));
    expect(noKey.body.code).toBe("session_key_required");
    const key = await deviceKey(u.jwt);
    const activityId = randomUUID();
    const stranger = await signInAs(app, t.environmentId);
    await deviceKey(stranger.jwt);
    expect((await refused(sdkFor(app.baseUrl, stranger.jwt).embeddedWalletExport({ environmentId: t.environmentId, walletId: u.wallets[0].id, activityId }))).status).toBe(404);

    const { exportBundle } = await u.sdk.embeddedWalletExport({ environmentId: t.environmentId, walletId: u.wallets[0].id, activityId });
    expect(decodeProtectedHeader(exportBundle)).toMatchObject({ alg: "ECDH-ES", enc: "A256GCM" });
    const priv = await decryptionKey(key.secretKey);
    const { plaintext } = await compactDecrypt(exportBundle, priv);
    expect(privateKeyToAddress(`0x${bytesToHex(plaintext)}`).toLowerCase()).toBe(u.wallets[0].address!.toLowerCase());

    const replay = await refused(u.sdk.embeddedWalletExport({ environmentId: t.environmentId, walletId: u.wallets[0].id, activityId }));
    expect(replay.status).toBe(409);
    expect(replay.body.code).toBe("export_activity_used");
    // Two exports of one new activity at once: exactly one answers a bundle.
    const twin = randomUUID();
    const both = await Promise.allSettled([0, 1].map(() => u.sdk.embeddedWalletExport({ environmentId: t.environmentId, walletId: u.wallets[0].id, activityId: twin })));
    expect(both.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const { id: realId } = await app.db.one("SELECT id FROM wallets WHERE credential_id = $1", [u.wallets[0].id]);
    // Audited and announced once, without the key.
    const audit = await app.db.any("SELECT changes FROM audit_log WHERE resource_id = $1 AND action = 'wallet.exported'", [realId]);
    expect(audit).toHaveLength(2);
    expect(JSON.stringify(audit)).not.toContain(bytesToHex(plaintext));
    const events = await app.db.any("SELECT 1 FROM events WHERE environment_id = $1 AND event_name = 'wallet.exported' AND resource_id = $2", [t.environmentId, realId]);
    expect(events).toHaveLength(2);
  });

  it("asks for a fresh factor where the environment requires one for exports: a recent sign-in passes, an old one does not", async () => {
    const x = await app.bootstrap({ ownerEmail: `ew-${randomUUID()}@example.com` });
    const set = await call(app.baseUrl, "PUT", `/environments/${x.environmentId}`, {
      token: x.token,
      body: { security: { mfa: { enabled: true, required: false, actions: [{ action: "wallet.waas.export", required: true }] } } },
    });
    expect(set.status, set.text).toBe(200);
    const s = await signInAs(app, x.environmentId);
    const sdk = sdkFor(app.baseUrl, s.jwt);
    const created = await sdk.createEmbeddedWallets({
      environmentId: x.environmentId,
      createEmbeddedWalletsRequest: { embeddedWallets: [{ chain: EmbeddedWalletChainEnum.Evm, embeddedWalletProvider: EmbeddedWalletProviderEnum.Turnkey }] },
    });
    const walletId = created.user.verifiedCredentials.find((c) => c.walletProvider === "embeddedWallet")!.id;
    const sk = p256.utils.randomSecretKey();
    await sdkFor(app.baseUrl, created.jwt).registerSessionKey({ environmentId: x.environmentId, registerSessionKeyRequest: { publicKey: bytesToHex(p256.getPublicKey(sk, true)) } });
    const exp = () => sdkFor(app.baseUrl, created.jwt).embeddedWalletExport({ environmentId: x.environmentId, walletId, activityId: randomUUID() });
    expect((await exp()).exportBundle).toBeTruthy();
    await app.db.none("UPDATE sessions SET created_at = now() - interval '10 minutes' WHERE id = $1", [s.sessionId]);
    const stale = await refused(exp());
    expect(stale.status).toBe(403);
    expect(stale.body.code).toBe("invalid_mfa_token");
  });

  it("issues a short-lived token the environment's JWKS verifies, audience embedded-wallet:mpc", async () => {
    const u = await userWithWallets();
    const { token } = await u.sdk.getAuthToken({ environmentId: t.environmentId, type: EmbeddedWalletAuthType.Mpc });
    const jwks = await call(app.baseUrl, "GET", `/sdk/${t.environmentId}/.well-known/jwks`, {});
    expect(jwks.status, jwks.text).toBe(200);
    const keys = jwks.body.keys;
    const claims = decodeJwt(token);
    expect(claims.aud).toBe("embedded-wallet:mpc");
    expect(claims.sub).toBe(u.userId);
    expect((claims.exp as number) - (claims.iat as number)).toBeLessThanOrEqual(300);
    await jwtVerify(token, createLocalJWKSet({ keys }), { audience: "embedded-wallet:mpc" });
  });
});

describe("passcode and backup", () => {
  it("the backup opens with the passcode to the wallet's key; the passcode is stable; none without a wallet (404)", async () => {
    const u = await userWithWallets();
    const pass = await u.sdk.getEmbeddedWalletPasscode({ environmentId: t.environmentId });
    expect(pass.source).toBe("dynamic");
    expect(pass.secret.length).toBeGreaterThanOrEqual(32);
    const [again, backup] = await Promise.all([u.sdk.getEmbeddedWalletPasscode({ environmentId: t.environmentId }), u.sdk.getEmbeddedWalletBackups({ environmentId: t.environmentId })]);
    expect(again.secret).toBe(pass.secret);
    expect(backup.walletId).toBe(pass.walletId);
    expect(decodeProtectedHeader(backup.secret).alg).toBe("PBES2-HS512+A256KW");
    // jose opens PBES2 only when asked to (a client chooses it knowingly).
    const pbes2 = { keyManagementAlgorithms: ["PBES2-HS512+A256KW"] };
    const { plaintext } = await compactDecrypt(backup.secret, new TextEncoder().encode(pass.secret), pbes2);
    expect(privateKeyToAddress(`0x${bytesToHex(plaintext)}`).toLowerCase()).toBe(u.wallets[0].address!.toLowerCase());
    await expect(compactDecrypt(backup.secret, new TextEncoder().encode(pass.secret + "x"), pbes2)).rejects.toThrow();
    const reads = await app.db.one("SELECT count(*)::int AS n FROM audit_log WHERE resource_id = $1 AND action LIKE 'embedded_wallet.%_read'", [pass.walletId]);
    expect(reads.n).toBe(3);

    const none = await signInAs(app, t.environmentId);
    expect((await refused(sdkFor(app.baseUrl, none.jwt).getEmbeddedWalletPasscode({ environmentId: t.environmentId }))).status).toBe(404);
  });
});

describe("session keys", () => {
  const payload = new TextEncoder().encode("sign this for me");
  const sign = (k: { secretKey: Uint8Array }, p = payload) => bytesToHex(p256.sign(p, k.secretKey, { format: "der" }));

  it("verifySessionKeySignature: valid; tampered; another user's key; revoked session; expired session", async () => {
    const u = await signInAs(app, t.environmentId);
    const key = await deviceKey(u.jwt);
    const check = (over: Partial<Parameters<typeof verifySessionKeySignature>[1]> = {}) =>
      verifySessionKeySignature(app.deps, { environmentId: t.environmentId, userId: u.userId, sessionKeyPublicKey: key.publicKey, payload, signature: sign(key), ...over });
    expect(await check()).toBe(true);
    // Compact (r||s) signatures and the uncompressed form of the key count too.
    expect(await check({ signature: bytesToHex(p256.sign(payload, key.secretKey)) })).toBe(true);
    expect(await check({ sessionKeyPublicKey: bytesToHex(p256.getPublicKey(key.secretKey, false)) })).toBe(true);
    expect(await check({ payload: new TextEncoder().encode("sign this for me!") })).toBe(false);
    expect(await check({ signature: "00" + sign(key).slice(2) })).toBe(false);
    expect(await check({ environmentId: other.environmentId })).toBe(false);
    const stranger = await signInAs(app, t.environmentId);
    expect(await check({ userId: stranger.userId })).toBe(false);
    // An unregistered key with a valid signature of its own.
    const loose = { secretKey: p256.utils.randomSecretKey() };
    expect(await check({ sessionKeyPublicKey: bytesToHex(p256.getPublicKey(loose.secretKey, true)), signature: sign(loose) })).toBe(false);

    // Expired session: the key stops counting with it.
    const expiring = await signInAs(app, t.environmentId);
    const expiringKey = await deviceKey(expiring.jwt);
    const checkExpiring = () =>
      verifySessionKeySignature(app.deps, { environmentId: t.environmentId, userId: expiring.userId, sessionKeyPublicKey: expiringKey.publicKey, payload, signature: sign(expiringKey) });
    expect(await checkExpiring()).toBe(true);
    await app.db.none("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1", [expiring.sessionId]);
    expect(await checkExpiring()).toBe(false);

    // Revoked session (signed out through the client).
    await sdkFor(app.baseUrl, u.jwt).revokeSession({ environmentId: t.environmentId });
    expect(await check()).toBe(false);
    expect((await refused(sdkFor(app.baseUrl, u.jwt).registerSessionKey({ environmentId: t.environmentId, registerSessionKeyRequest: { publicKey: key.publicKey } }))).status).toBe(401);
  });

  it("refuses a key that is not a P-256 or ed25519 public key", async () => {
    const u = await signInAs(app, t.environmentId);
    for (const publicKey of ["zz", "02" + "ff".repeat(32), "04" + "11".repeat(64)]) {
      const r = await refused(sdkFor(app.baseUrl, u.jwt).registerSessionKey({ environmentId: t.environmentId, registerSessionKeyRequest: { publicKey } }));
      expect(r.status, publicKey).toBe(400);
      expect(r.body.code).toBe("invalid_session_key");
    }
  });
});

describe("input and transports", () => {
  it("refuses a threshold provider on the V1 create (400) and creates nothing", async () => {
    const u = await signInAs(app, t.environmentId);
    const r = await refused(
      sdkFor(app.baseUrl, u.jwt).createEmbeddedWallets({
        environmentId: t.environmentId,
        createEmbeddedWalletsRequest: { embeddedWallets: [{ chain: EmbeddedWalletChainEnum.Evm, embeddedWalletProvider: EmbeddedWalletProviderEnum.DynamicWaas }] },
      }),
    );
    expect(r.status).toBe(400);
    expect((await app.db.one("SELECT count(*)::int AS n FROM wallets WHERE user_id = $1", [u.userId])).n).toBe(0);
  });

  it("answers over gRPC: create, then a second create on the chain is FailedPrecondition", async () => {
    const u = await signInAs(app, t.environmentId);
    const client = createClient(SdkEmbeddedWalletsService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const headers = { authorization: `Bearer ${u.jwt}` };
    const req = { environmentId: t.environmentId, embeddedWallets: [{ chain: "SOL", embeddedWalletProvider: "turnkey" }] };
    const res = await client.createEmbeddedWallets(req, { headers });
    expect(res.signIn?.user?.verifiedCredentials.some((c) => c.chain === "SOL")).toBe(true);
    const again = await client.createEmbeddedWallets(req, { headers }).catch((e) => ConnectError.from(e));
    expect((again as ConnectError).code).toBe(Code.FailedPrecondition);
  });
});

/** A live embedded wallet of the user, as the client names it (its credential id). */
async function userWallet(userId: string): Promise<{ id: string }> {
  const row = await app.db.one("SELECT credential_id FROM wallets WHERE user_id = $1 AND deleted_at IS NULL LIMIT 1", [userId]);
  return { id: row.credential_id };
}

describe("recovery by e-mail", () => {
  it("a signed body chooses a verified recovery address; an unverified one is refused; the e-mail auth bundle opens to a working session key", async () => {
    const u = await userWithWallets(["EVM", "SOL"]);
    const key = await deviceKey(u.jwt);
    const body = (email: string) => ({ organizationId: t.environmentId, parameters: { email }, timestampMs: String(Date.now()), type: "ACTIVITY_TYPE_UPDATE_RECOVERY_EMAIL" });
    const unverified = await refused(
      u.sdk.updateEmbeddedWalletRecoveryEmail({ environmentId: t.environmentId, updateRecoveryEmailRequest: { turnkeySignedRequest: stamped(body("someone-else@example.com"), key) } }),
    );
    expect(unverified.status).toBe(422);
    expect(unverified.body.code).toBe("email_not_verified");
    await u.sdk.updateEmbeddedWalletRecoveryEmail({ environmentId: t.environmentId, updateRecoveryEmailRequest: { turnkeySignedRequest: stamped(body(u.email), key) } });

    // The device's target key; the bundle comes by mail to the recovery address.
    const target = p256.utils.randomSecretKey();
    const targetPublicKey = bytesToHex(p256.getPublicKey(target, false));
    const before = smtp.countTo(u.email);
    const init = await u.sdk.initEmailAuth({ environmentId: t.environmentId, initEmailAuthRequest: { walletId: u.wallets[0].id, turnkeyEmailAuthTargetPublicKey: targetPublicKey } });
    expect(init.turnkeyUserId).toBe(u.userId);
    const mail = await smtp.mailTo(u.email, before);
    const bundle = (mail.parsed.text ?? "").split(/\s+/).find((w) => w.split(".").length === 5)!;
    const priv = await decryptionKey(target);
    const apiSecret = Uint8Array.from(Buffer.from(new TextDecoder().decode((await compactDecrypt(bundle, priv)).plaintext), "hex"));
    expect(bytesToHex(p256.getPublicKey(apiSecret, true))).toBe(init.turnkeyApiKeyId);

    // The mailed key signs the user's requests.
    const del = await u.sdk.getEmbeddedWalletsDeleteRequest({ environmentId: t.environmentId, walletId: u.wallets[0].id });
    const raw = { organizationId: del.organizationId, parameters: { walletIds: del.parameters.walletIds, deleteWithoutExport: true }, timestampMs: del.timestampMs, type: del.type };
    await u.sdk.deleteEmbeddedWallets({ environmentId: t.environmentId, deleteEmbeddedWalletsRequest: { turnkeySignedRequest: stamped(raw, { secretKey: apiSecret, publicKey: init.turnkeyApiKeyId }) } });

    // Passkey recovery: the creation options come by mail, encrypted to the device's target key.
    const page = new SDKApi(new Configuration({ basePath: `${app.baseUrl}/api/v0`, accessToken: u.jwt, headers: { Origin: ORIGIN, Authorization: `Bearer ${u.jwt}` } }));
    const live = u.wallets[1] ?? (await userWallet(u.userId));
    const mailsBefore = smtp.countTo(u.email);
    const rec = await page.initPasskeyRecovery({ environmentId: t.environmentId, initPasskeyRecoveryRequest: { walletId: live.id, turnkeyRecoveryTargetPublicKey: targetPublicKey } });
    expect(rec.turnkeyRecoveryUserId).toBe(u.userId);
    const recMail = await smtp.mailTo(u.email, mailsBefore);
    const recBundle = (recMail.parsed.text ?? "").split(/\s+/).find((w) => w.split(".").length === 5)!;
    const options = JSON.parse(new TextDecoder().decode((await compactDecrypt(recBundle, priv)).plaintext));
    const attestation = new SoftwareAuthenticator().create(options, ORIGIN);
    const complete = (challenge: string) =>
      page.completePasskeyRecovery({
        environmentId: t.environmentId,
        completePasskeyRecoveryRequest: {
          walletId: live.id,
          challenge,
          attestation: { credentialId: attestation.id, attestationObject: attestation.response.attestationObject, clientDataJson: attestation.response.clientDataJSON, transports: attestation.response.transports as never },
        },
      });
    expect((await refused(complete("x".repeat(43)))).body.code).toBe("invalid_attestation");
    const recovered = await complete(options.challenge);
    expect(recovered.jwt).toBeTruthy();
    expect((await app.db.one("SELECT count(*)::int AS n FROM user_passkeys WHERE user_id = $1", [u.userId])).n).toBe(1);
    expect((await refused(complete(options.challenge))).status).toBeGreaterThanOrEqual(400);

    // Another user's wallet: 404, and nothing is mailed.
    const stranger = await signInAs(app, t.environmentId);
    const count = smtp.countTo(stranger.email);
    const theirs = await refused(sdkFor(app.baseUrl, stranger.jwt).initEmailAuth({ environmentId: t.environmentId, initEmailAuthRequest: { walletId: u.wallets[0].id, turnkeyEmailAuthTargetPublicKey: targetPublicKey } }));
    expect(theirs.status).toBe(404);
    expect(smtp.countTo(stranger.email)).toBe(count);
  });
});

describe("upgrade to V2", () => {
  /** A user with an EVM and a SOL embedded wallet pregenerated by the management surface, signed in. */
  async function pregeneratedUser() {
    const email = `v1-${randomUUID()}@example.com`;
    const pre = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/embeddedWallets`, { token: t.token, body: { identifier: email, type: "email", chains: ["EVM", "SOL"] } });
    expect(pre.status, pre.text).toBe(201);
    const s = await signInAs(app, t.environmentId, email);
    // New embedded wallets are made on V2 (no setting makes V1 ones any more): the test puts these back on V1 in SQL
    // to stand for wallets made before V2.
    await app.db.none(`UPDATE wallets SET properties = properties || '{"version":"V1"}' WHERE user_id = $1 AND provider = 'embeddedWallet'`, [s.userId]);
    return { ...s, sdk: sdkFor(app.baseUrl, s.jwt) };
  }
  const versions = async (userId: string) =>
    (await app.db.manyOrNone("SELECT properties->>'version' AS v FROM wallets WHERE user_id = $1 AND provider = 'embeddedWallet' ORDER BY chain", [userId])).map((r) => r.v);

  it("upgrades the caller's V1 wallets to V2 in one audited change, registers the session key, answers tokens; a second call is 422; another user's wallets are untouched", async () => {
    const u = await pregeneratedUser();
    const bystander = await pregeneratedUser();
    const sk = p256.utils.randomSecretKey();
    const sessionPublicKey = bytesToHex(p256.getPublicKey(sk, true));

    const r = await u.sdk.upgradeEmbeddedWalletToV2({ environmentId: t.environmentId, upgradeEmbeddedWalletToV2Request: { sessionPublicKey } });
    expect(r.jwt).toBeTruthy();
    const embeddedVcs = r.user.verifiedCredentials.filter((c) => c.walletProvider === "embeddedWallet");
    expect(embeddedVcs.map((c) => c.walletProperties?.version)).toEqual(["V2", "V2"]);
    // The credential names the wallet row behind it (embeddedWalletId).
    const rows = await app.db.manyOrNone("SELECT id, credential_id FROM wallets WHERE user_id = $1 AND provider = 'embeddedWallet'", [u.userId]);
    for (const vc of embeddedVcs) expect(vc.embeddedWalletId).toBe(rows.find((w) => w.credential_id === vc.id)?.id);
    expect(await versions(u.userId)).toEqual(["V2", "V2"]);
    expect(await versions(bystander.userId)).toEqual(["V1", "V1"]);

    const audit = await app.db.manyOrNone("SELECT resource_id FROM audit_log WHERE action = 'embedded_wallet.upgraded' AND resource_id = ANY($1::text[])", [rows.map((w) => w.id)]);
    expect(audit).toHaveLength(2);
    const events = await app.db.manyOrNone("SELECT user_id FROM events WHERE event_name = 'embedded_wallet.upgraded' AND resource_id = ANY($1::text[])", [rows.map((w) => w.id)]);
    expect(events.map((e) => e.user_id)).toEqual([u.userId, u.userId]);

    const payload = new TextEncoder().encode("upgraded");
    const signature = bytesToHex(p256.sign(payload, sk, { format: "der" }));
    expect(await verifySessionKeySignature(app.deps, { environmentId: t.environmentId, userId: u.userId, sessionKeyPublicKey: sessionPublicKey, payload, signature })).toBe(true);

    const again = await refused(u.sdk.upgradeEmbeddedWalletToV2({ environmentId: t.environmentId, upgradeEmbeddedWalletToV2Request: {} }));
    expect(again.status).toBe(422);
    expect(again.body.code).toBe("no_v1_embedded_wallet");
  });

  it("refuses (and changes nothing) a malformed session key, a user without V1 wallets with a key, another environment's JWT", async () => {
    const u = await pregeneratedUser();
    const bad = await refused(u.sdk.upgradeEmbeddedWalletToV2({ environmentId: t.environmentId, upgradeEmbeddedWalletToV2Request: { sessionPublicKey: "02" + "ff".repeat(32) } }));
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_session_key");
    expect(await versions(u.userId)).toEqual(["V1", "V1"]);

    // A user whose wallets are V2 already: 422, and the key sent along is not registered.
    const v2 = await userWithWallets();
    const sessionPublicKey = bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), true));
    const none = await refused(v2.sdk.upgradeEmbeddedWalletToV2({ environmentId: t.environmentId, upgradeEmbeddedWalletToV2Request: { sessionPublicKey } }));
    expect(none.status).toBe(422);
    expect(none.body.code).toBe("no_v1_embedded_wallet");
    expect((await app.db.one("SELECT count(*)::int AS n FROM session_keys WHERE user_id = $1", [v2.userId])).n).toBe(0);

    const foreign = await signInAs(app, other.environmentId);
    const cross = await refused(sdkFor(app.baseUrl, foreign.jwt).upgradeEmbeddedWalletToV2({ environmentId: t.environmentId, upgradeEmbeddedWalletToV2Request: {} }));
    expect(cross.status).toBe(401);
    expect(await versions(u.userId)).toEqual(["V1", "V1"]);
  });

  it("two concurrent upgrades: exactly one wins", async () => {
    const u = await pregeneratedUser();
    const up = () => u.sdk.upgradeEmbeddedWalletToV2({ environmentId: t.environmentId, upgradeEmbeddedWalletToV2Request: {} });
    const results = await Promise.allSettled([up(), up()]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect((await app.db.one("SELECT count(*)::int AS n FROM audit_log WHERE action = 'embedded_wallet.upgraded' AND (changes->'after'->>'userId') = $1", [u.userId])).n).toBe(2);
  });
});
