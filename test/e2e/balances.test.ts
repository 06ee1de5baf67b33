import { randomUUID } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ChainEnum, Configuration, SDKApi } from "@dynamic-labs/sdk-api";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { BalancesService } from "../../src/gen/sigil/balances/v0/balances_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

/**
 * Token balances of a user's wallets (POST /environments/{environmentId}/users/{userId}/balances, the
 * published client's SDKApi.getUserAccountBalances). No chain node is configured here, so every network is
 * answered without a `balances` field (unknown is not zero); amounts read from a real node are tested in
 * test/e2e/sdk-account-balances.test.ts.
 */

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;

const email = () => `${randomUUID()}@example.com`;
const randomEvmAddress = () => privateKeyToAddress(generatePrivateKey());
const randomSolAddress = () => base58.encode(ed25519.getPublicKey(ed25519.utils.randomSecretKey()));

beforeAll(async () => {
  app = await startTestApp({}, { dispatcher: false });
  t = await app.bootstrap({ ownerEmail: email() });
  other = await app.bootstrap({ ownerEmail: email() });
}, 60_000);
afterAll(() => app?.stop());

const balancesPath = (userId: string, environmentId = t.environmentId) => `/environments/${environmentId}/users/${userId}/balances`;

async function createUser(tenant = t): Promise<string> {
  const res = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/users`, { token: tenant.token, body: { email: email() } });
  expect(res.status, res.text).toBe(201);
  return res.body.user.id;
}

/** Links a wallet to the user; returns the wallet as stored (its canonical address is `publicKey`). */
async function linkWallet(userId: string, chain: "EVM" | "SOL", address: string, tenant = t) {
  const res = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/users/${userId}/wallets`, {
    token: tenant.token,
    body: { publicWalletAddress: address, chain, walletName: chain === "EVM" ? "metamask" : "phantom", walletProvider: "browserExtension" },
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; publicKey: string };
}

const balances = (userId: string, balanceRequests: unknown, opts: { token?: string; environmentId?: string } = {}) =>
  call(app.baseUrl, "POST", balancesPath(userId, opts.environmentId), { token: opts.token ?? t.token, body: { balanceRequests } });

const auditCount = async (environmentId: string) =>
  (await app.db.one("SELECT count(*)::int AS n FROM audit_log WHERE environment_id = $1", [environmentId])).n as number;

describe("balances of a user's wallets", () => {
  it("answers each requested wallet of the user with its networks, without balances", async () => {
    const userId = await createUser();
    const evm = await linkWallet(userId, "EVM", randomEvmAddress());
    const sol = await linkWallet(userId, "SOL", randomSolAddress());
    const res = await balances(userId, [
      { address: evm.publicKey, chain: "EVM", networkIds: [1, 137, 1], whitelistedContracts: ["0x0000000000000000000000000000000000000001"] },
      { address: sol.publicKey, chain: "SOL", networkIds: [101] },
    ]);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    // In the order requested, networks once each.
    expect(res.body).toEqual({
      chainBalances: [
        { walletAddress: evm.publicKey, chain: "EVM", networks: [{ networkId: 1 }, { networkId: 137 }] },
        { walletAddress: sol.publicKey, chain: "SOL", networks: [{ networkId: 101 }] },
      ],
    });
    expect(res.text).not.toContain("balances\":");
    expect(res.text).not.toContain("\"balances\"");

    // filterSpamTokens is accepted (the client sends it); a network list may be empty.
    const spam = await call(app.baseUrl, "POST", balancesPath(userId), {
      token: t.token,
      body: { filterSpamTokens: true, balanceRequests: [{ address: evm.publicKey, chain: "EVM", networkIds: [] }] },
    });
    expect(spam.status, spam.text).toBe(200);
    expect(spam.body).toEqual({ chainBalances: [{ walletAddress: evm.publicKey, chain: "EVM", networks: [] }] });
  });

  it("reads ETH as EVM, echoing the chain as requested", async () => {
    const userId = await createUser();
    const evm = await linkWallet(userId, "EVM", randomEvmAddress());
    const res = await balances(userId, [{ address: evm.publicKey, chain: "ETH", networkIds: [8453] }]);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ chainBalances: [{ walletAddress: evm.publicKey, chain: "ETH", networks: [{ networkId: 8453 }] }] });
  });

  it("compares EVM addresses case-insensitively and answers the stored (checksummed) address; others exactly", async () => {
    const userId = await createUser();
    const evm = await linkWallet(userId, "EVM", randomEvmAddress());
    expect(evm.publicKey).not.toBe(evm.publicKey.toLowerCase()); // a checksummed address has upper-case letters
    for (const address of [evm.publicKey.toLowerCase(), `0x${evm.publicKey.slice(2).toUpperCase()}`]) {
      const res = await balances(userId, [{ address, chain: "EVM", networkIds: [1] }]);
      expect(res.status, `${address}: ${res.text}`).toBe(200);
      expect(res.body.chainBalances[0].walletAddress).toBe(evm.publicKey);
    }
    // Solana addresses are case-sensitive base58: another case is another address.
    const sol = await linkWallet(userId, "SOL", randomSolAddress());
    const swapped = [...sol.publicKey].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join("");
    expect(swapped).not.toBe(sol.publicKey);
    const res = await balances(userId, [{ address: swapped, chain: "SOL", networkIds: [101] }]);
    expect(res.status, res.text).toBe(404);
  });

  it("finds every address the user holds, as the published client sends it: additional addresses and WaaS wallets", async () => {
    const userId = await createUser();
    // A Bitcoin wallet: its ordinals address, with the payment address the SDK also asks balances for.
    const ordinals = "bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297";
    const payment = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
    const linked = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/users/${userId}/wallets`, {
      token: t.token,
      body: { publicWalletAddress: ordinals, chain: "BTC", walletName: "xverse", walletProvider: "browserExtension", additionalWalletAddresses: [{ address: payment, type: "payment" }] },
    });
    expect(linked.status, linked.text).toBe(201);
    // A WaaS wallet the management API made for the user.
    const waas = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/waas/create`, { token: t.token, body: { identifier: userId, type: "id", chains: ["EVM"] } });
    expect(waas.status, waas.text).toBe(201);
    const waasAddress: string = waas.body.wallet.address;

    const sdk = new SDKApi(new Configuration({ basePath: `${app.baseUrl}/api/v0`, accessToken: t.token, headers: { Authorization: `Bearer ${t.token}` } }));
    const res = await sdk.getUserAccountBalances({
      environmentId: t.environmentId,
      userId,
      multichainAccountBalancesRequest: {
        balanceRequests: [
          { address: payment, chain: ChainEnum.Btc, networkIds: [1] },
          { address: ordinals.toUpperCase(), chain: ChainEnum.Btc, networkIds: [1] },
          { address: waasAddress.toLowerCase(), chain: ChainEnum.Evm, networkIds: [1, 8453] },
        ],
      },
    });
    expect(res).toEqual({
      chainBalances: [
        { walletAddress: payment, chain: "BTC", networks: [{ networkId: 1 }] },
        { walletAddress: ordinals, chain: "BTC", networks: [{ networkId: 1 }] },
        { walletAddress: waasAddress, chain: "EVM", networks: [{ networkId: 1 }, { networkId: 8453 }] },
      ],
    });
    // The payment address is a Bitcoin address of the user, not an EVM one.
    expect((await balances(userId, [{ address: payment, chain: "EVM", networkIds: [1] }])).status).toBe(404);
    // Over gRPC alike.
    const grpc = createClient(BalancesService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const headers = { authorization: `Bearer ${t.token}` };
    const overGrpc = await grpc.getUserAccountBalances({ environmentId: t.environmentId, userId, balanceRequests: [{ address: waasAddress.toLowerCase(), chain: "EVM", networkIds: [1n] }] }, { headers });
    expect(overGrpc.chainBalances[0]?.walletAddress).toBe(waasAddress);
    await expect(grpc.getUserAccountBalances({ environmentId: t.environmentId, userId, balanceRequests: [{ address: payment, chain: "EVM", networkIds: [1n] }] }, { headers })).rejects.toMatchObject({ code: 5 });
  });

  it("answers 404 for an address that is not one of the user's live wallets, whatever else was asked", async () => {
    const userId = await createUser();
    const mine = await linkWallet(userId, "EVM", randomEvmAddress());
    const neighbour = await createUser();
    const theirs = await linkWallet(neighbour, "EVM", randomEvmAddress());
    const gone = await linkWallet(userId, "EVM", randomEvmAddress());
    const del = await call(app.baseUrl, "DELETE", `/environments/${t.environmentId}/wallets/${gone.id}`, { token: t.token });
    expect(del.status, del.text).toBe(204);
    const foreignTenantUser = await createUser(other);
    const foreign = await linkWallet(foreignTenantUser, "EVM", randomEvmAddress(), other);

    const cases: [string, unknown[]][] = [
      ["an unknown address", [{ address: randomEvmAddress(), chain: "EVM", networkIds: [1] }]],
      ["another user's wallet", [{ address: theirs.publicKey, chain: "EVM", networkIds: [1] }]],
      ["a deleted wallet", [{ address: gone.publicKey, chain: "EVM", networkIds: [1] }]],
      ["a wallet of another tenant", [{ address: foreign.publicKey, chain: "EVM", networkIds: [1] }]],
      ["the user's wallet on another chain", [{ address: mine.publicKey, chain: "SOL", networkIds: [101] }]],
      ["one of the user's and one not", [{ address: mine.publicKey, chain: "EVM", networkIds: [1] }, { address: theirs.publicKey, chain: "EVM", networkIds: [1] }]],
    ];
    for (const [what, requests] of cases) {
      const res = await balances(userId, requests);
      expect(res.status, `${what}: ${res.text}`).toBe(404);
      expect(res.body).toMatchObject({ code: "not_found", error: expect.any(String) });
      expect(res.text).not.toContain(theirs.publicKey);
    }
    // The wallet's owner is answered for it.
    expect((await balances(neighbour, [{ address: theirs.publicKey, chain: "EVM", networkIds: [1] }])).status).toBe(200);
    // An unknown user is 404 too.
    const unknownUser = await balances(randomUUID(), [{ address: mine.publicKey, chain: "EVM", networkIds: [1] }]);
    expect(unknownUser.status, unknownUser.text).toBe(404);
    expect(unknownUser.body.code).toBe("not_found");
  });

  it("refuses bad input with 400 and the spec's error body", async () => {
    const userId = await createUser();
    const evm = await linkWallet(userId, "EVM", randomEvmAddress());
    const ok = { address: evm.publicKey, chain: "EVM", networkIds: [1] };
    const cases: [string, string, unknown][] = [
      ["no balanceRequests", balancesPath(userId), {}],
      ["balanceRequests not a list", balancesPath(userId), { balanceRequests: "EVM" }],
      ["an unknown chain", balancesPath(userId), { balanceRequests: [{ ...ok, chain: "DOGE" }] }],
      ["no chain", balancesPath(userId), { balanceRequests: [{ address: evm.publicKey, networkIds: [1] }] }],
      ["no address", balancesPath(userId), { balanceRequests: [{ chain: "EVM", networkIds: [1] }] }],
      ["an over-long address", balancesPath(userId), { balanceRequests: [{ ...ok, address: `0x${"a".repeat(200)}` }] }],
      ["a network id that is no number", balancesPath(userId), { balanceRequests: [{ ...ok, networkIds: ["mainnet"] }] }],
      ["too many requests", balancesPath(userId), { balanceRequests: Array.from({ length: 51 }, () => ok) }],
      ["a user id that is no uuid", balancesPath("not-a-uuid"), { balanceRequests: [ok] }],
    ];
    for (const [what, path, body] of cases) {
      const res = await call(app.baseUrl, "POST", path, { token: t.token, body });
      expect(res.status, `${what}: ${res.text}`).toBe(400);
      expect(typeof res.body.error).toBe("string");
      expect(typeof res.body.code).toBe("string");
    }
    const malformed = await call(app.baseUrl, "POST", balancesPath(userId), { token: t.token, rawBody: "{not json" });
    expect(malformed.status, malformed.text).toBe(400);
  });
});

describe("access", () => {
  it("answers 401 without a token and 404 to another tenant's tokens, changing nothing", async () => {
    const userId = await createUser();
    const evm = await linkWallet(userId, "EVM", randomEvmAddress());
    const request = [{ address: evm.publicKey, chain: "EVM", networkIds: [1] }];
    const before = await auditCount(t.environmentId);

    const anonymous = await call(app.baseUrl, "POST", balancesPath(userId), { body: { balanceRequests: request } });
    expect(anonymous.status, anonymous.text).toBe(401);
    expect(typeof anonymous.body.code).toBe("string");

    for (const [token, environmentId] of [
      [other.token, t.environmentId],
      [other.memberToken, t.environmentId],
      [other.token, other.environmentId], // their own environment, naming our user
    ] as const) {
      const res = await balances(userId, request, { token, environmentId });
      expect(res.status, `${environmentId === t.environmentId ? "our env" : "their env"}: ${res.text}`).toBe(404);
      expect(res.body).toMatchObject({ code: "not_found" });
      expect(res.text).not.toContain(evm.publicKey);
    }
    expect(await auditCount(t.environmentId)).toBe(before);
    // The tenant's own environment and member tokens are answered.
    expect((await balances(userId, request)).status).toBe(200);
    expect((await balances(userId, request, { token: t.memberToken })).status).toBe(200);
  });
});
