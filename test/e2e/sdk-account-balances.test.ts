import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createClient, Code, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ChainEnum, type SDKApi } from "@dynamic-labs/sdk-api";
import { generateKeyPairSigner } from "@solana/kit";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHAIN_SETTINGS } from "../../src/config-chains.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkBalancesService } from "../../src/gen/sigil/balances/v0/sdk_balances_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { startSecondApi } from "../support/second-api.js";
import { startEvmChain, type EvmChain } from "./support/evm-chain.js";
import { startSolanaChain, type SolanaChain } from "./support/solana-chain.js";

/**
 * GET /sdk/{environmentId}/chains/{chainName}/balances (the published client's SDKApi.getAccountBalances),
 * read from real local nodes: Hardhat's EVM chain and the LiteSVM Solana chain. The EVM node comes from the
 * environment's settings (a tenant's URL, reached under the destination policy) or the operator's default;
 * the Solana one from the operator's default for devnet (103).
 */

let app: TestApp;
let evm: EvmChain;
let sol: SolanaChain;
let t: BootstrapResult;
let sdk: SDKApi;

const ETHER = 10n ** 18n;
const freshEvmAddress = () => privateKeyToAddress(generatePrivateKey());
const OPERATOR_EVM_CHAIN_ID = 31337;

beforeAll(async () => {
  [evm, sol] = await Promise.all([startEvmChain(), startSolanaChain()]);
  app = await startTestApp(
    { chains: { ...DEFAULT_CHAIN_SETTINGS, evmRpcUrls: { [OPERATOR_EVM_CHAIN_ID]: evm.rpcUrl }, solanaRpcUrls: { 103: sol.rpcUrl } } },
    { dispatcher: false },
  );
  t = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
  sdk = sdkFor(app.baseUrl);
}, 90_000);
afterAll(async () => {
  await app?.stop();
  await Promise.all([evm?.close(), sol?.close()]);
});

async function setChains(environmentId: string, token: string, chains: unknown[]) {
  const res = await call(app.baseUrl, "PUT", `/environments/${environmentId}`, { token, body: { chains } });
  expect(res.status, res.text).toBe(200);
}

describe("getAccountBalances on an EVM chain", () => {
  it("answers the native balance after a real transfer and an ERC-20 after a real mint, with its metadata", async () => {
    const holder = freshEvmAddress();
    await evm.transferNative(holder, 3n * ETHER);
    await evm.mintErc20(holder, 42n * ETHER);
    const balances = await sdk.getAccountBalances({
      environmentId: t.environmentId, chainName: ChainEnum.Evm, accountAddress: holder, networkId: OPERATOR_EVM_CHAIN_ID, whitelistedContracts: [evm.contracts.erc20],
    });
    expect(balances).toEqual([
      expect.objectContaining({ networkId: 31337, address: "0x0000000000000000000000000000000000000000", symbol: "ETH", decimals: 18, rawBalance: 3e18, balance: 3, isNative: true }),
      expect.objectContaining({ networkId: 31337, address: evm.contracts.erc20, name: "Test Token", symbol: "TST", decimals: 18, rawBalance: 42e18, balance: 42, isNative: false }),
    ]);
  });

  it("reads the tokens of the environment's token gates on that network without being asked for them", async () => {
    const tenant = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
    const gate = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/gates`, {
      token: tenant.token,
      body: { name: "Holders", outcome: "siteAccess", rules: [{ type: "token", chain: "EVM", address: { networkId: OPERATOR_EVM_CHAIN_ID, contractAddress: evm.contracts.erc20 }, filter: { amount: 1 } }] },
    });
    expect(gate.status, gate.text).toBeLessThan(300);
    const holder = freshEvmAddress();
    await evm.mintErc20(holder, 3n * ETHER);
    const balances = await sdk.getAccountBalances({ environmentId: tenant.environmentId, chainName: ChainEnum.Evm, accountAddress: holder, networkId: OPERATOR_EVM_CHAIN_ID, includeNative: false });
    expect(balances).toEqual([expect.objectContaining({ address: evm.contracts.erc20, symbol: "TST", balance: 3 })]);
  });

  it("reads the node the environment's settings name (a tenant's URL), and the environment's first enabled network when none is asked", async () => {
    const other = await startEvmChain({ chainId: 31338 });
    try {
      const tenant = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
      await setChains(tenant.environmentId, tenant.token, [{ name: "EVM", enabled: true, networks: [{ networkId: 31338, enabled: true, rpcUrl: other.rpcUrl }] }]);
      const holder = freshEvmAddress();
      await other.transferNative(holder, 5n * ETHER);
      const balances = await sdk.getAccountBalances({ environmentId: tenant.environmentId, chainName: ChainEnum.Evm, accountAddress: holder });
      expect(balances).toEqual([expect.objectContaining({ networkId: 31338, rawBalance: 5e18, balance: 5, isNative: true })]);
    } finally {
      await other.close();
    }
  });

  it("caches an answer for a few seconds (shared store), forceRefresh reads the node, and after the window it is fresh", async () => {
    const holder = freshEvmAddress();
    await evm.transferNative(holder, 1n * ETHER);
    const read = (forceRefresh?: boolean) =>
      sdk.getAccountBalances({ environmentId: t.environmentId, chainName: ChainEnum.Evm, accountAddress: holder, networkId: OPERATOR_EVM_CHAIN_ID, forceRefresh });
    expect((await read())[0]!.balance).toBe(1);
    await evm.transferNative(holder, 1n * ETHER);
    expect((await read())[0]!.balance).toBe(1);
    expect((await read(true))[0]!.balance).toBe(2);
    await evm.transferNative(holder, 1n * ETHER);
    await new Promise((r) => setTimeout(r, 5_500));
    expect((await read())[0]!.balance).toBe(3);
  }, 30_000);
});

describe("the balances cache across api processes", () => {
  it("a second api process of the deployment answers from the entry the first one stored (one node read for both)", async () => {
    const second = await startSecondApi(app);
    try {
      const holder = freshEvmAddress();
      await evm.transferNative(holder, 1n * ETHER);
      const ask = (client: SDKApi) =>
        client.getAccountBalances({ environmentId: t.environmentId, chainName: ChainEnum.Evm, accountAddress: holder, networkId: OPERATOR_EVM_CHAIN_ID });
      expect((await ask(sdk))[0]!.balance).toBe(1);
      await evm.transferNative(holder, 1n * ETHER);
      // The node now says 2; the other process has never read this address, yet answers the shared entry.
      expect((await ask(sdkFor(second.baseUrl)))[0]!.balance).toBe(1);
    } finally {
      await second.stop();
    }
  });
});

describe("getAccountBalances on Solana", () => {
  it("answers SOL after an airdrop and an SPL token after a real mintTo", async () => {
    const owner = (await generateKeyPairSigner()).address;
    await sol.airdrop(owner, 2_500_000_000n);
    const mint = await sol.createMint({ decimals: 6 });
    await sol.mintTo(mint, owner, 1_234_567n);
    const balances = await sdk.getAccountBalances({ environmentId: t.environmentId, chainName: ChainEnum.Sol, accountAddress: owner, networkId: 103 });
    expect(balances).toEqual([
      expect.objectContaining({ networkId: 103, address: "11111111111111111111111111111111", symbol: "SOL", decimals: 9, rawBalance: 2_500_000_000, balance: 2.5, isNative: true }),
      expect.objectContaining({ networkId: 103, address: mint, decimals: 6, rawBalance: 1_234_567, balance: 1.234567, isNative: false }),
    ]);
  });
});

describe("getAccountBalances refuses bad input with its code, never a 500", () => {
  const ask = (over: Partial<Parameters<SDKApi["getAccountBalances"]>[0]>) =>
    refused(sdk.getAccountBalances({ environmentId: t.environmentId, chainName: ChainEnum.Evm, accountAddress: freshEvmAddress(), networkId: OPERATOR_EVM_CHAIN_ID, ...over }));

  it("422 unsupported_chain for a chain Sigil does not read, a name nobody knows, or a Solana network that is not a cluster", async () => {
    for (const [chainName, networkId] of [[ChainEnum.Flow, undefined], ["NOPE", undefined], [ChainEnum.Sol, 999]] as const) {
      const r = await ask({ chainName: chainName as ChainEnum, networkId, accountAddress: "x" });
      expect(r.status, JSON.stringify(r.body)).toBe(422);
      expect(r.body.code).toBe("unsupported_chain");
    }
  });

  it("400 invalid_wallet_address for a malformed address (EVM and Solana) and invalid_contract_address for a bad token", async () => {
    const evmBad = await ask({ accountAddress: "0x1234" });
    expect(evmBad.status).toBe(400);
    expect(evmBad.body).toMatchObject({ code: "invalid_wallet_address", payload: { field: "accountAddress" } });
    const solBad = await ask({ chainName: ChainEnum.Sol, networkId: 103, accountAddress: "0OIl-not-base58" });
    expect(solBad.status).toBe(400);
    expect(solBad.body.code).toBe("invalid_wallet_address");
    const tokenBad = await ask({ whitelistedContracts: ["0xnot-a-contract"] });
    expect(tokenBad.status).toBe(400);
    expect(tokenBad.body.code).toBe("invalid_contract_address");
  });

  it("422 not_configured for a network with no node, or one the environment turned off", async () => {
    const none = await ask({ networkId: 5 });
    expect(none.status).toBe(422);
    expect(none.body).toMatchObject({ code: "not_configured", payload: { networkId: 5 } });
    const tenant = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
    await setChains(tenant.environmentId, tenant.token, [{ name: "EVM", enabled: true, networks: [{ networkId: OPERATOR_EVM_CHAIN_ID, enabled: false }] }]);
    const off = await refused(sdk.getAccountBalances({ environmentId: tenant.environmentId, chainName: ChainEnum.Evm, accountAddress: freshEvmAddress(), networkId: OPERATOR_EVM_CHAIN_ID }));
    expect(off.status).toBe(422);
    expect(off.body.code).toBe("not_configured");
  });

  it("uses the organization's own custom network of the chain id, never another organization's", async () => {
    const custom = await startEvmChain({ chainId: OPERATOR_EVM_CHAIN_ID + 100 });
    try {
      const owner = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
      const created = await call(app.baseUrl, "POST", `/organizations/${owner.organizationId}/customNetworks`, {
        token: owner.token,
        body: { name: "Local", chainId: OPERATOR_EVM_CHAIN_ID + 100, rpcUrls: [custom.rpcUrl], blockExplorerUrls: [], nativeCurrency: { name: "Local Ether", symbol: "LETH", decimals: 18 }, testnet: true },
      });
      expect(created.status, created.text).toBeLessThan(300);
      const holder = freshEvmAddress();
      await custom.transferNative(holder, 2n * ETHER);
      // The custom network names chain id 31437 for its node; its currency is the organization's.
      const own = await sdk.getAccountBalances({ environmentId: owner.environmentId, chainName: ChainEnum.Evm, accountAddress: holder, networkId: OPERATOR_EVM_CHAIN_ID + 100 });
      expect(own).toEqual([expect.objectContaining({ networkId: 31437, symbol: "LETH", name: "Local Ether", balance: 2 })]);
      const stranger = await refused(sdk.getAccountBalances({ environmentId: t.environmentId, chainName: ChainEnum.Evm, accountAddress: holder, networkId: OPERATOR_EVM_CHAIN_ID + 100 }));
      expect(stranger.status).toBe(422);
      expect(stranger.body.code).toBe("not_configured");
    } finally {
      await custom.close();
    }
  });

  it("422 not_configured for a live environment's tenant URL on loopback (the destination policy), nothing fetched", async () => {
    await setChains(t.liveEnvironmentId, t.memberToken, [{ name: "EVM", enabled: true, networks: [{ networkId: 31337, enabled: true, rpcUrl: evm.rpcUrl }] }]);
    const r = await refused(sdk.getAccountBalances({ environmentId: t.liveEnvironmentId, chainName: ChainEnum.Evm, accountAddress: freshEvmAddress(), networkId: 31337 }));
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("not_configured");
  });

  it("503 chain_unavailable with Retry-After when the node is down", async () => {
    const doomed = await startEvmChain({ chainId: 31339 });
    const tenant = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
    await setChains(tenant.environmentId, tenant.token, [{ name: "EVM", enabled: true, networks: [{ networkId: 31339, enabled: true, rpcUrl: doomed.rpcUrl }] }]);
    await doomed.close();
    const r = await refused(sdk.getAccountBalances({ environmentId: tenant.environmentId, chainName: ChainEnum.Evm, accountAddress: freshEvmAddress(), networkId: 31339 }));
    expect(r.status).toBe(503);
    expect(r.body.code).toBe("chain_unavailable");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("503 chain_unavailable when the node answers more than SIGIL_CHAIN_MAX_RESPONSE_BYTES (the rest is not read)", async () => {
    const huge = JSON.stringify({ jsonrpc: "2.0", id: 0, result: "0x1", padding: "x".repeat(DEFAULT_CHAIN_SETTINGS.maxResponseBytes + 1) });
    const flood = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(huge));
    await new Promise<void>((r) => flood.listen(0, "127.0.0.1", r));
    try {
      const tenant = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
      const rpcUrl = `http://127.0.0.1:${(flood.address() as AddressInfo).port}`;
      await setChains(tenant.environmentId, tenant.token, [{ name: "EVM", enabled: true, networks: [{ networkId: 31341, enabled: true, rpcUrl }] }]);
      const r = await refused(sdk.getAccountBalances({ environmentId: tenant.environmentId, chainName: ChainEnum.Evm, accountAddress: freshEvmAddress(), networkId: 31341 }));
      expect(r.status).toBe(503);
      expect(r.body.code).toBe("chain_unavailable");
      expect(r.body.error).toContain("larger than");
    } finally {
      flood.closeAllConnections();
      await new Promise((r) => flood.close(r));
    }
  });
});

describe("SdkBalancesService over gRPC", () => {
  it("answers the same balances, FAILED_PRECONDITION for an unsupported chain and UNAVAILABLE for a node that is down", async () => {
    const client = createClient(SdkBalancesService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const holder = freshEvmAddress();
    await evm.transferNative(holder, 7n * ETHER);
    const res = await client.getAccountBalances({ environmentId: t.environmentId, chainName: "EVM", accountAddress: holder, networkId: BigInt(OPERATOR_EVM_CHAIN_ID) });
    expect(res.balances.map((b) => [b.symbol, b.balance, b.isNative])).toEqual([["ETH", 7, true]]);
    const unsupported = await client.getAccountBalances({ environmentId: t.environmentId, chainName: "BTC", accountAddress: holder }).catch((e) => e);
    expect(ConnectError.from(unsupported).code).toBe(Code.FailedPrecondition);
    const doomed = await startEvmChain({ chainId: 31340 });
    await setChains(t.environmentId, t.token, [{ name: "EVM", enabled: true, networks: [{ networkId: 31340, enabled: true, rpcUrl: doomed.rpcUrl }] }]);
    await doomed.close();
    const down = await client.getAccountBalances({ environmentId: t.environmentId, chainName: "EVM", accountAddress: holder, networkId: 31340n }).catch((e) => e);
    expect(ConnectError.from(down).code).toBe(Code.Unavailable);
    expect(ConnectError.from(down).metadata.get("retry-after")).toBeTruthy();
  });
});

describe("postMultichainAccountBalances", () => {
  it("reads several addresses on several chains in one request, each network with its balances", async () => {
    const holder = freshEvmAddress();
    await evm.transferNative(holder, 4n * ETHER);
    const owner = (await generateKeyPairSigner()).address;
    await sol.airdrop(owner, 1_000_000_000n);
    const res = await sdk.postMultichainAccountBalances({
      environmentId: t.environmentId,
      multichainAccountBalancesRequest: {
        balanceRequests: [
          { address: holder.toLowerCase(), chain: ChainEnum.Evm, networkIds: [OPERATOR_EVM_CHAIN_ID] },
          { address: owner, chain: ChainEnum.Sol, networkIds: [103] },
        ],
      },
    });
    expect(res.chainBalances).toEqual([
      { walletAddress: holder, chain: "EVM", networks: [{ networkId: 31337, balances: [expect.objectContaining({ symbol: "ETH", balance: 4, isNative: true })] }] },
      { walletAddress: owner, chain: "SOL", networks: [{ networkId: 103, balances: [expect.objectContaining({ symbol: "SOL", balance: 1, isNative: true })] }] },
    ]);
  });

  it("400 too_many_networks past 10 address-network pairs (nothing read), and the failing pair's error otherwise", async () => {
    const ask = (balanceRequests: { address: string; chain: ChainEnum; networkIds: number[] }[]) =>
      refused(sdk.postMultichainAccountBalances({ environmentId: t.environmentId, multichainAccountBalancesRequest: { balanceRequests } }));
    const many = await ask([{ address: freshEvmAddress(), chain: ChainEnum.Evm, networkIds: Array.from({ length: 11 }, (_, i) => i + 1) }]);
    expect(many.status).toBe(400);
    expect(many.body).toMatchObject({ code: "too_many_networks", payload: { limit: 10 } });
    const unconfigured = await ask([
      { address: freshEvmAddress(), chain: ChainEnum.Evm, networkIds: [OPERATOR_EVM_CHAIN_ID] },
      { address: freshEvmAddress(), chain: ChainEnum.Evm, networkIds: [5] },
    ]);
    expect(unconfigured.status).toBe(422);
    expect(unconfigured.body.code).toBe("not_configured");
    const malformed = await ask([{ address: "not-an-address", chain: ChainEnum.Evm, networkIds: [OPERATOR_EVM_CHAIN_ID] }]);
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe("invalid_wallet_address");
  });
});

describe("getUserAccountBalances (management) with a node configured", () => {
  it("answers real amounts for a network with a node, and no balances (unknown, not zero) for one without", async () => {
    const holder = freshEvmAddress();
    await evm.transferNative(holder, 6n * ETHER);
    await evm.mintErc20(holder, 9n * ETHER);
    const created = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/users`, { token: t.token, body: { email: `${crypto.randomUUID()}@example.com` } });
    const userId = created.body.user.id;
    const linked = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/users/${userId}/wallets`, {
      token: t.token, body: { publicWalletAddress: holder, chain: "EVM", walletName: "metamask", walletProvider: "browserExtension" },
    });
    expect(linked.status, linked.text).toBeLessThan(300);
    const res = await sdkFor(app.baseUrl, t.token).getUserAccountBalances({
      environmentId: t.environmentId,
      userId,
      multichainAccountBalancesRequest: { balanceRequests: [{ address: holder, chain: ChainEnum.Evm, networkIds: [OPERATOR_EVM_CHAIN_ID, 1], whitelistedContracts: [evm.contracts.erc20] }] },
    });
    expect(res.chainBalances).toEqual([
      {
        walletAddress: holder,
        chain: "EVM",
        networks: [
          { networkId: 31337, balances: [expect.objectContaining({ symbol: "ETH", balance: 6, isNative: true }), expect.objectContaining({ symbol: "TST", balance: 9, rawBalance: 9e18 })] },
          { networkId: 1 },
        ],
      },
    ]);
  });
});
