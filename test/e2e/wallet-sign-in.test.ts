import { randomUUID } from "node:crypto";
import { ChainEnum } from "@dynamic-labs/sdk-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { APP_DOMAIN, evmProof, newEvmWallet, newSolanaWallet, solanaMessage, solanaProof } from "../support/wallet-proofs.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { waitFor } from "../support/poll.js";

/**
 * Signing in with a wallet signature through the published client's SDKApi (unchanged, basePath /api/v0):
 * nonces, SIWE (EIP-4361) and Solana sign-in messages, and the attacks on them.
 */

let app: TestApp;
let tenant: BootstrapResult;
beforeAll(async () => {
  app = await startTestApp();
  tenant = await app.bootstrap({ ownerEmail: `wallet-sign-in-${randomUUID()}@example.com` });
}, 60_000);
afterAll(() => app?.stop());

const sdk = (jwt?: string) => sdkFor(app.baseUrl, jwt);
const nonceFor = async (environmentId: string) => (await sdk().getNonce({ environmentId })).nonce!;
const manage = async (t: BootstrapResult, method: string, path: string, body?: unknown) => {
  const res = await call(app.baseUrl, method, path, { token: t.token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
};
const freshTenant = () => app.bootstrap({ ownerEmail: `wallet-sign-in-${randomUUID()}@example.com` });

describe("getNonce", () => {
  it("answers 128 bits of fresh randomness, alphanumeric as EIP-4361 wants", async () => {
    const a = await nonceFor(tenant.environmentId);
    const b = await nonceFor(tenant.environmentId);
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(b).not.toBe(a);
  });

  it("is 404 for an unknown environment", async () => {
    expect((await refused(sdk().getNonce({ environmentId: randomUUID() }))).status).toBe(404);
  });
});

describe("verify (EVM, Sign-In With Ethereum)", () => {
  it("creates a user for a new wallet, and signs the same user in next time", async () => {
    const wallet = newEvmWallet();
    const first = await sdk().verify({ environmentId: tenant.environmentId, verifyRequest: await evmProof(wallet, await nonceFor(tenant.environmentId)) });
    expect(first.user.newUser).toBe(true);
    expect(first.expiresAt).toBeGreaterThan(Date.now() / 1000);
    const vc = first.user.verifiedCredentials?.find((c) => c.format === "blockchain");
    expect(vc).toMatchObject({ address: wallet.address, chain: "EVM", walletName: "metamask" });
    await sdk(first.jwt).sessionCheck({ environmentId: tenant.environmentId });

    const second = await sdk().verify({ environmentId: tenant.environmentId, verifyRequest: await evmProof(wallet, await nonceFor(tenant.environmentId)) });
    expect(second.user.newUser).toBe(false);
    expect(second.user.id).toBe(first.user.id);
    const events = await app.db.any("SELECT event_name FROM events WHERE environment_id = $1 AND user_id = $2", [tenant.environmentId, first.user.id]);
    expect(events.map((e) => e.event_name)).toEqual(expect.arrayContaining(["user.created", "wallet.linked", "user.session.created"]));
  });

  it("signs in the user who holds the wallet under ETH, the EVM family's older name", async () => {
    const wallet = newEvmWallet();
    const { user } = await manage(tenant, "POST", `/environments/${tenant.environmentId}/users`, { email: `eth-${randomUUID()}@example.com` });
    await manage(tenant, "POST", `/environments/${tenant.environmentId}/users/${user.id}/wallets`, {
      publicWalletAddress: wallet.address, chain: "ETH", walletName: "metamask", walletProvider: "browserExtension",
    });
    const r = await sdk().verify({ environmentId: tenant.environmentId, verifyRequest: await evmProof(wallet, await nonceFor(tenant.environmentId)) });
    expect(r.user).toMatchObject({ id: user.id, newUser: false });
  });

  it("refuses a replayed message: the nonce is used up", async () => {
    const proof = await evmProof(newEvmWallet(), await nonceFor(tenant.environmentId));
    await sdk().verify({ environmentId: tenant.environmentId, verifyRequest: proof });
    const replay = await refused(sdk().verify({ environmentId: tenant.environmentId, verifyRequest: proof }));
    expect(replay).toMatchObject({ status: 422, body: { code: "invalid_nonce" } });
    expect(replay.body.error).toMatch(/nonce/);
  });

  it("refuses a nonce it never issued, and an expired one", async () => {
    const made = await refused(sdk().verify({ environmentId: tenant.environmentId, verifyRequest: await evmProof(newEvmWallet(), "abcdef0123456789abcdef0123456789") }));
    expect(made).toMatchObject({ status: 422, body: { code: "invalid_nonce" } });
    // A nonce whose 10 minutes are over: the store forgets it (set here with a short TTL).
    const nonce = randomUUID().replaceAll("-", "");
    const key = `wallet-sign-in:nonce:${tenant.environmentId}:${nonce}`;
    await app.deps.store.set(key, "1", 0.2);
    await waitFor("the nonce to expire", async () => (await app.deps.store.get(key)) === null);
    const expired = await refused(sdk().verify({ environmentId: tenant.environmentId, verifyRequest: await evmProof(newEvmWallet(), nonce) }));
    expect(expired).toMatchObject({ status: 422, body: { code: "invalid_nonce" } });
  });

  it("refuses a nonce issued for another environment", async () => {
    const other = await freshTenant();
    const proof = await evmProof(newEvmWallet(), await nonceFor(other.environmentId));
    expect(await refused(sdk().verify({ environmentId: tenant.environmentId, verifyRequest: proof }))).toMatchObject({ status: 422, body: { code: "invalid_nonce" } });
    // ... which is still good where it was issued: the failed attempt elsewhere did not use it up.
    await sdk().verify({ environmentId: other.environmentId, verifyRequest: proof });
  });

  it("refuses a tampered signature without using up the nonce", async () => {
    const wallet = newEvmWallet();
    const proof = await evmProof(wallet, await nonceFor(tenant.environmentId));
    const sig = proof.signedMessage;
    const tampered = { ...proof, signedMessage: sig.slice(0, 10) + (sig[10] === "a" ? "b" : "a") + sig.slice(11) };
    expect(await refused(sdk().verify({ environmentId: tenant.environmentId, verifyRequest: tampered }))).toMatchObject({ status: 422, body: { code: "invalid_signature" } });
    // Another key signing the same message is no better.
    const forged = { ...proof, signedMessage: await newEvmWallet().signMessage({ message: proof.messageToSign }) };
    expect(await refused(sdk().verify({ environmentId: tenant.environmentId, verifyRequest: forged }))).toMatchObject({ status: 422, body: { code: "invalid_signature" } });
    const garbage = { ...proof, signedMessage: "0x12345" };
    expect(await refused(sdk().verify({ environmentId: tenant.environmentId, verifyRequest: garbage }))).toMatchObject({ status: 400, body: { code: "invalid_signature" } });
    // Not an EOA's length: only a smart-contract wallet's, which needs a node of the chain (none here).
    const contractShaped = { ...proof, signedMessage: "0x1234" };
    expect(await refused(sdk().verify({ environmentId: tenant.environmentId, verifyRequest: contractShaped }))).toMatchObject({ status: 422, body: { code: "not_configured" } });
    expect((await sdk().verify({ environmentId: tenant.environmentId, verifyRequest: proof })).user.newUser).toBe(true);
  });

  it("refuses a message naming another address than the wallet's, or signed by another key for it", async () => {
    const wallet = newEvmWallet();
    const victim = newEvmWallet();
    // The message names the attacker's wallet, the request claims the victim's.
    const claimed = { ...(await evmProof(wallet, await nonceFor(tenant.environmentId))), publicWalletAddress: victim.address };
    expect(await refused(sdk().verify({ environmentId: tenant.environmentId, verifyRequest: claimed }))).toMatchObject({ status: 422, body: { code: "address_mismatch" } });
    // The message and request name the victim's wallet; the attacker's key signed it.
    const signedByOther = { ...(await evmProof(wallet, await nonceFor(tenant.environmentId), { address: victim.address })), publicWalletAddress: victim.address };
    expect(await refused(sdk().verify({ environmentId: tenant.environmentId, verifyRequest: signedByOther }))).toMatchObject({ status: 422, body: { code: "invalid_signature" } });
    const count = await app.db.one("SELECT count(*)::int AS n FROM wallets WHERE environment_id = $1 AND address = $2", [tenant.environmentId, victim.address]);
    expect(count.n).toBe(0);
  });

  it("lets exactly one of two concurrent verifies with one nonce through", async () => {
    const wallet = newEvmWallet();
    const proof = await evmProof(wallet, await nonceFor(tenant.environmentId));
    const results = await Promise.allSettled([1, 2, 3].map(() => sdk().verify({ environmentId: tenant.environmentId, verifyRequest: proof })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results.filter((r) => r.status === "rejected")) expect(await refused(Promise.reject(r.reason))).toMatchObject({ status: 422, body: { code: "invalid_nonce" } });
    const sessions = await app.db.one(
      "SELECT count(*)::int AS n FROM sessions s JOIN wallets w ON w.user_id = s.user_id WHERE w.environment_id = $1 AND w.address = $2",
      [tenant.environmentId, wallet.address],
    );
    expect(sessions.n).toBe(1);
  });

  it("checks the message's times", async () => {
    const env = tenant.environmentId;
    const expired = await evmProof(newEvmWallet(), await nonceFor(env), { expirationTime: new Date(Date.now() - 1000) });
    expect(await refused(sdk().verify({ environmentId: env, verifyRequest: expired }))).toMatchObject({ status: 422, body: { code: "message_expired" } });
    const future = await evmProof(newEvmWallet(), await nonceFor(env), { issuedAt: new Date(Date.now() + 3600_000) });
    expect(await refused(sdk().verify({ environmentId: env, verifyRequest: future }))).toMatchObject({ status: 422, body: { code: "message_issued_in_future" } });
    const early = await evmProof(newEvmWallet(), await nonceFor(env), { notBefore: new Date(Date.now() + 3600_000) });
    expect(await refused(sdk().verify({ environmentId: env, verifyRequest: early }))).toMatchObject({ status: 422, body: { code: "message_not_yet_valid" } });
  });

  it("refuses what is not a sign-in message, and chains it does not verify or the environment disabled", async () => {
    const env = tenant.environmentId;
    const wallet = newEvmWallet();
    const message = "please sign this";
    const plain = { ...(await evmProof(wallet, await nonceFor(env))), messageToSign: message, signedMessage: await wallet.signMessage({ message }) };
    expect(await refused(sdk().verify({ environmentId: env, verifyRequest: plain }))).toMatchObject({ status: 400, body: { code: "invalid_message" } });
    const btc = { ...(await evmProof(wallet, await nonceFor(env))), chain: ChainEnum.Btc };
    const notSupported = await refused(sdk().verify({ environmentId: env, verifyRequest: btc }));
    expect(notSupported).toMatchObject({ status: 422, body: { code: "chain_not_supported" } });
    expect(notSupported.body.error).toMatch(/EVM/);
    const missing = await refused(sdk().verify({ environmentId: env, verifyRequest: { ...btc, chain: ChainEnum.Evm, signedMessage: "" } }));
    expect(missing).toMatchObject({ status: 400, body: { code: "validation_error" } });
    expect(missing.body.error).toMatch(/signedMessage/);

    const solOnly = await freshTenant();
    await manage(solOnly, "PUT", `/environments/${solOnly.environmentId}`, { chains: [{ name: "SOL", enabled: true }, { name: "EVM", enabled: false }] });
    const disabled = await refused(sdk().verify({ environmentId: solOnly.environmentId, verifyRequest: await evmProof(wallet, await nonceFor(solOnly.environmentId)) }));
    expect(disabled).toMatchObject({ status: 422, body: { code: "chain_disabled" } });
  });

  it("holds the message's domain and URI to the environment's origins when it has any", async () => {
    const t = await freshTenant();
    const env = t.environmentId;
    await manage(t, "POST", `/environments/${env}/origins`, { origin: `https://${APP_DOMAIN}` });
    const phishing = await evmProof(newEvmWallet(), await nonceFor(env), { domain: "app.example.com.evil.test", uri: "https://app.example.com.evil.test/login" });
    expect(await refused(sdk().verify({ environmentId: env, verifyRequest: phishing }))).toMatchObject({ status: 422, body: { code: "domain_not_allowed" } });
    const badUri = await evmProof(newEvmWallet(), await nonceFor(env), { uri: "https://evil.test/login" });
    expect(await refused(sdk().verify({ environmentId: env, verifyRequest: badUri }))).toMatchObject({ status: 422, body: { code: "uri_not_allowed" } });
    expect((await sdk().verify({ environmentId: env, verifyRequest: await evmProof(newEvmWallet(), await nonceFor(env)) })).user.newUser).toBe(true);
  });
});

describe("verify (SOL, Solana sign-in message)", () => {
  it("signs in with an ed25519 signature in base58 or base64", async () => {
    const wallet = newSolanaWallet();
    const first = await sdk().verify({ environmentId: tenant.environmentId, verifyRequest: solanaProof(wallet, await nonceFor(tenant.environmentId)) });
    expect(first.user.newUser).toBe(true);
    expect(first.user.verifiedCredentials?.find((c) => c.format === "blockchain")).toMatchObject({ address: wallet.address, chain: "SOL" });
    const again = await sdk().verify({ environmentId: tenant.environmentId, verifyRequest: solanaProof(wallet, await nonceFor(tenant.environmentId), { encoding: "base64" }) });
    expect(again.user.id).toBe(first.user.id);
  });

  it("refuses a replay, a tampered message and another key's signature", async () => {
    const wallet = newSolanaWallet();
    const proof = solanaProof(wallet, await nonceFor(tenant.environmentId));
    const tampered = { ...proof, messageToSign: proof.messageToSign.replace("example app", "exampl3 app") };
    expect(await refused(sdk().verify({ environmentId: tenant.environmentId, verifyRequest: tampered }))).toMatchObject({ status: 422, body: { code: "invalid_signature" } });
    const other = newSolanaWallet();
    const forged = { ...solanaProof(other, "x", { message: proof.messageToSign }), publicWalletAddress: wallet.address };
    expect(await refused(sdk().verify({ environmentId: tenant.environmentId, verifyRequest: forged }))).toMatchObject({ status: 422, body: { code: "invalid_signature" } });
    await sdk().verify({ environmentId: tenant.environmentId, verifyRequest: proof });
    expect(await refused(sdk().verify({ environmentId: tenant.environmentId, verifyRequest: proof }))).toMatchObject({ status: 422, body: { code: "invalid_nonce" } });
  });

  it("refuses a message for another wallet", async () => {
    const wallet = newSolanaWallet();
    const message = solanaMessage(newSolanaWallet().address, await nonceFor(tenant.environmentId));
    const proof = solanaProof(wallet, "", { message });
    expect(await refused(sdk().verify({ environmentId: tenant.environmentId, verifyRequest: proof }))).toMatchObject({ status: 422, body: { code: "address_mismatch" } });
  });
});

describe("sign-in rate limit", () => {
  it("holds verify to the sign-in limit per client address (429 with Retry-After); nonces stay available", async () => {
    const limited = await startTestApp({ sdkRateLimits: { perAddressPer10s: 0, signInPerAddressPerMinute: 2 } });
    try {
      const t = await limited.bootstrap({ ownerEmail: `wallet-sign-in-${randomUUID()}@example.com` });
      const client = sdkFor(limited.baseUrl);
      const proofs = [];
      for (let i = 0; i < 3; i++) proofs.push(await evmProof(newEvmWallet(), (await client.getNonce({ environmentId: t.environmentId })).nonce!));
      await client.verify({ environmentId: t.environmentId, verifyRequest: proofs[0] });
      await client.verify({ environmentId: t.environmentId, verifyRequest: proofs[1] });
      // The client throws the fetch Response of a non-2xx answer.
      const res = (await client.verifyRaw({ environmentId: t.environmentId, verifyRequest: proofs[2] }).then(
        () => expect.fail("the third verify passed the limit"),
        (e: unknown) => e,
      )) as Response;
      expect(res.status).toBe(429);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await client.getNonce({ environmentId: t.environmentId })).nonce).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      await limited.stop();
    }
  }, 60_000);
});
