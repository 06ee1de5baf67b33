import { randomUUID } from "node:crypto";
import { createClient, Code, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ChainEnum, WalletProviderEnum, type VerifyRequest } from "@dynamic-labs/sdk-api";
import { decodeJwt } from "jose";
import { erc20Abi, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHAIN_SETTINGS } from "../../src/config-chains.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkWalletSignInService } from "../../src/gen/sigil/wallet_sign_in/v0/wallet_sign_in_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { APP_DOMAIN, APP_URI, evmProof, newEvmWallet, newSolanaWallet, solanaProof } from "../support/wallet-proofs.js";
import { startEvmChain, type EvmChain } from "./support/evm-chain.js";
import { startSolanaChain, type SolanaChain } from "./support/solana-chain.js";

/**
 * Token gates decide wallet sign-ins through the published client's SDKApi.verify (and gRPC): holdings read
 * from the local Hardhat chain (ERC-20 amounts, ERC-721 and ERC-1155 ownership) at each sign-in, the gate's
 * outcome applied (siteAccess, block, scope), and a chain that cannot be read failing closed.
 */

let app: TestApp;
let evm: EvmChain;
let sol: SolanaChain;
const DOWN_CHAIN_ID = 4243;
const ETHER = 10n ** 18n;

beforeAll(async () => {
  [evm, sol] = await Promise.all([startEvmChain(), startSolanaChain()]);
  const down = await startEvmChain({ chainId: DOWN_CHAIN_ID });
  const downUrl = down.rpcUrl;
  await down.close();
  app = await startTestApp(
    { chains: { ...DEFAULT_CHAIN_SETTINGS, evmRpcUrls: { [evm.chainId]: evm.rpcUrl, [DOWN_CHAIN_ID]: downUrl }, solanaRpcUrls: { 103: sol.rpcUrl } } },
    { dispatcher: false },
  );
}, 90_000);
afterAll(async () => {
  await app?.stop();
  await Promise.all([evm?.close(), sol?.close()]);
});

const newTenant = () => app.bootstrap({ ownerEmail: `gates-${randomUUID()}@example.com` });

async function rest(t: BootstrapResult, method: string, path: string, body?: unknown) {
  const res = await call(app.baseUrl, method, path, { token: t.token, body });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
}

type Rule = { type: string; contract: Address; amount?: number; tokenId?: string; networkId?: number };

/** An enabled gate of these rules on the local chain. */
async function gate(t: BootstrapResult, outcome: string, rules: Rule[], scope?: string) {
  const created = await rest(t, "POST", `/environments/${t.environmentId}/gates`, {
    name: `${outcome} gate`,
    outcome,
    ...(scope ? { scope } : {}),
    rules: rules.map((r) => ({
      type: r.type,
      chain: "EVM",
      address: { networkId: r.networkId ?? evm.chainId, contractAddress: r.contract },
      filter: { ...(r.amount !== undefined ? { amount: r.amount } : {}), ...(r.tokenId ? { tokenId: r.tokenId } : {}) },
    })),
  });
  await rest(t, "PUT", `/environments/${t.environmentId}/gates/${created.id}/enable`);
  return created;
}

async function proofFor(t: BootstrapResult, wallet: PrivateKeyAccount): Promise<VerifyRequest> {
  const { nonce } = await sdkFor(app.baseUrl).getNonce({ environmentId: t.environmentId });
  return evmProof(wallet, nonce!, { chainId: evm.chainId });
}
const signIn = async (t: BootstrapResult, wallet: PrivateKeyAccount) =>
  sdkFor(app.baseUrl).verify({ environmentId: t.environmentId, verifyRequest: await proofFor(t, wallet) });
const users = async (t: BootstrapResult) => (await app.db.one("SELECT count(*)::int AS n FROM users WHERE environment_id = $1", [t.environmentId])).n;

describe("siteAccess gates", () => {
  it("let a holder of the ERC-20 amount in, and keep a non-holder and a holder of less out, creating no user", async () => {
    const t = await newTenant();
    await gate(t, "siteAccess", [{ type: "token", contract: evm.contracts.erc20, amount: 5e18 }]);
    const holder = newEvmWallet();
    await evm.mintErc20(holder.address, 5n * ETHER);
    expect((await signIn(t, holder)).user.newUser).toBe(true);
    const before = await users(t);
    const short = newEvmWallet();
    await evm.mintErc20(short.address, 4n * ETHER);
    for (const wallet of [newEvmWallet(), short]) {
      const r = await refused(signIn(t, wallet));
      expect(r).toMatchObject({ status: 403, body: { code: "gate_not_satisfied" } });
      expect(r.body.error).toMatch(/gate/);
    }
    expect(await users(t)).toBe(before);
  });

  it("read the chain at each sign-in: a holding given away no longer lets its wallet in", async () => {
    const t = await newTenant();
    await gate(t, "siteAccess", [{ type: "token", contract: evm.contracts.erc20, amount: 1 }]);
    const key = generatePrivateKey();
    const holder = privateKeyToAccount(key);
    await evm.transferNative(holder.address, ETHER);
    await evm.mintErc20(holder.address, 1n);
    await signIn(t, holder);
    const wallet = evm.walletClient({ address: holder.address, privateKey: key });
    const hash = await wallet.writeContract({ address: evm.contracts.erc20, abi: erc20Abi, functionName: "transfer", args: [evm.accounts[1].address, 1n] });
    await evm.publicClient.waitForTransactionReceipt({ hash });
    expect(await refused(signIn(t, holder))).toMatchObject({ status: 403, body: { code: "gate_not_satisfied" } });
  });

  it("read ERC-721 ownership (any token of the collection, or one token id) and ERC-1155 balances of a token id", async () => {
    const t = await newTenant();
    const tokenId = BigInt(Date.now());
    await gate(t, "siteAccess", [{ type: "nft", contract: evm.contracts.erc721, tokenId: String(tokenId) }]);
    await gate(t, "siteAccess", [{ type: "nft", contract: evm.contracts.erc1155, tokenId: "0x2a", amount: 3 }]);
    const owner = newEvmWallet();
    await evm.mintErc721(owner.address, tokenId);
    const otherNftOwner = newEvmWallet();
    await evm.mintErc721(otherNftOwner.address, tokenId + 1n);
    const multi = newEvmWallet();
    await evm.mintErc1155(multi.address, 42n, 3n);
    const fewMulti = newEvmWallet();
    await evm.mintErc1155(fewMulti.address, 42n, 2n);
    expect((await signIn(t, owner)).user.newUser).toBe(true);
    expect((await signIn(t, multi)).user.newUser).toBe(true);
    for (const w of [otherNftOwner, fewMulti]) expect(await refused(signIn(t, w))).toMatchObject({ status: 403, body: { code: "gate_not_satisfied" } });

    const anyToken = await newTenant();
    await gate(anyToken, "siteAccess", [{ type: "nft", contract: evm.contracts.erc721 }]);
    expect((await signIn(anyToken, otherNftOwner)).user.newUser).toBe(true);
    expect(await refused(signIn(anyToken, fewMulti))).toMatchObject({ status: 403, body: { code: "gate_not_satisfied" } });
  });

  it("let a smart-contract wallet (ERC-1271) holding the NFT in", async () => {
    const t = await newTenant();
    const id = BigInt(Date.now() % 1_000_000) + 1000n;
    await evm.mintErc1155(evm.contracts.smartAccount, id, 1n);
    await gate(t, "siteAccess", [{ type: "nft", contract: evm.contracts.erc1155, tokenId: String(id) }]);
    const { nonce } = await sdkFor(app.baseUrl).getNonce({ environmentId: t.environmentId });
    const message = createSiweMessage({ address: evm.contracts.smartAccount, chainId: evm.chainId, domain: APP_DOMAIN, uri: APP_URI, version: "1", nonce: nonce!, issuedAt: new Date() });
    const r = await sdkFor(app.baseUrl).verify({
      environmentId: t.environmentId,
      verifyRequest: {
        chain: ChainEnum.Evm,
        publicWalletAddress: evm.contracts.smartAccount,
        messageToSign: message,
        signedMessage: await evm.walletClient().account.signMessage({ message }),
        walletName: "smart",
        walletProvider: WalletProviderEnum.SmartContractWallet,
      },
    });
    expect(r.user.newUser).toBe(true);
  });

  it("count the user's linked wallets: a known user signing in with another wallet passes on the holding of a linked one", async () => {
    const t = await newTenant();
    await gate(t, "siteAccess", [{ type: "token", contract: evm.contracts.erc20, amount: 1 }]);
    const vault = newEvmWallet();
    const hot = newEvmWallet();
    await evm.mintErc20(vault.address, 1n);
    const { user } = await rest(t, "POST", `/environments/${t.environmentId}/users`, { email: `gated-${randomUUID()}@example.com` });
    for (const w of [vault, hot])
      await rest(t, "POST", `/environments/${t.environmentId}/users/${user.id}/wallets`, {
        publicWalletAddress: w.address, chain: "EVM", walletName: "metamask", walletProvider: "browserExtension",
      });
    expect((await signIn(t, hot)).user).toMatchObject({ id: user.id, newUser: false });
    // A known user none of whose wallets holds is still kept out.
    const { user: empty } = await rest(t, "POST", `/environments/${t.environmentId}/users`, { email: `empty-${randomUUID()}@example.com` });
    const bare = newEvmWallet();
    await rest(t, "POST", `/environments/${t.environmentId}/users/${empty.id}/wallets`, {
      publicWalletAddress: bare.address, chain: "EVM", walletName: "metamask", walletProvider: "browserExtension",
    });
    expect(await refused(signIn(t, bare))).toMatchObject({ status: 403, body: { code: "gate_not_satisfied" } });
  });

  it("read SPL holdings on Solana for a Solana wallet's sign-in", async () => {
    const t = await newTenant();
    const mint = await sol.createMint({ decimals: 6 });
    await rest(t, "POST", `/environments/${t.environmentId}/gates`, {
      name: "SPL holders", outcome: "siteAccess",
      rules: [{ type: "token", chain: "SOL", address: { networkId: 103, contractAddress: mint }, filter: { amount: 2_000_000 } }],
    }).then((g) => rest(t, "PUT", `/environments/${t.environmentId}/gates/${g.id}/enable`));
    const holder = newSolanaWallet();
    await sol.mintTo(mint, holder.address as never, 2_000_000n);
    const solSignIn = async (w: ReturnType<typeof newSolanaWallet>) => {
      const { nonce } = await sdkFor(app.baseUrl).getNonce({ environmentId: t.environmentId });
      return sdkFor(app.baseUrl).verify({ environmentId: t.environmentId, verifyRequest: solanaProof(w, nonce!) });
    };
    expect((await solSignIn(holder)).user.newUser).toBe(true);
    const short = newSolanaWallet();
    await sol.mintTo(mint, short.address as never, 1_999_999n);
    for (const w of [short, newSolanaWallet()]) expect(await refused(solSignIn(w))).toMatchObject({ status: 403, body: { code: "gate_not_satisfied" } });
  });

  it("are not enforced while disabled", async () => {
    const t = await newTenant();
    const g = await gate(t, "siteAccess", [{ type: "token", contract: evm.contracts.erc20, amount: 1 }]);
    await rest(t, "PUT", `/environments/${t.environmentId}/gates/${g.id}/disable`);
    expect((await signIn(t, newEvmWallet())).user.newUser).toBe(true);
  });
});

describe("scope and block gates", () => {
  it("scope: a holder's token carries the gate's scope, a non-holder signs in without it", async () => {
    const t = await newTenant();
    await gate(t, "scope", [{ type: "token", contract: evm.contracts.erc20, amount: 1 }], "holders:read");
    const holder = newEvmWallet();
    await evm.mintErc20(holder.address, 1n);
    const held = await signIn(t, holder);
    expect(String(decodeJwt(held.jwt!).scope).split(" ").sort()).toEqual(["holders:read", "user:basic"]);
    const other = await signIn(t, newEvmWallet());
    expect(decodeJwt(other.jwt!).scope).toBe("user:basic");
  });

  it("block: a holder is refused with 403 blocked_by_gate, others sign in", async () => {
    const t = await newTenant();
    const tokenId = BigInt(Date.now()) + 7n;
    await gate(t, "block", [{ type: "nft", contract: evm.contracts.erc721, tokenId: String(tokenId) }]);
    const holder = newEvmWallet();
    await evm.mintErc721(holder.address, tokenId);
    expect(await refused(signIn(t, holder))).toMatchObject({ status: 403, body: { code: "blocked_by_gate" } });
    expect((await signIn(t, newEvmWallet())).user.newUser).toBe(true);
  });
});

describe("a gate that cannot be read fails closed", () => {
  it("503 chain_unavailable with Retry-After when the gate's node is down, whatever the outcome; no user is made", async () => {
    for (const outcome of ["siteAccess", "block"]) {
      const t = await newTenant();
      await gate(t, outcome, [{ type: "token", contract: evm.contracts.erc20, amount: 1, networkId: DOWN_CHAIN_ID }]);
      const r = await refused(signIn(t, newEvmWallet()));
      expect(r).toMatchObject({ status: 503, body: { code: "chain_unavailable" } });
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await users(t)).toBe(0);
    }
  });

  it("422 not_configured when no node serves the gate's chain; 422 gate_unreadable when its contract does not answer as the rule says", async () => {
    const t = await newTenant();
    await gate(t, "siteAccess", [{ type: "token", contract: evm.contracts.erc20, amount: 1, networkId: 999_001 }]);
    expect(await refused(signIn(t, newEvmWallet()))).toMatchObject({ status: 422, body: { code: "not_configured" } });
    const u = await newTenant();
    // An "nft" rule without a token id reads ERC-721 balanceOf(owner), which an ERC-1155 contract does not have.
    const g = await gate(u, "siteAccess", [{ type: "nft", contract: evm.contracts.erc1155 }]);
    expect(await refused(signIn(u, newEvmWallet()))).toMatchObject({ status: 422, body: { code: "gate_unreadable", payload: { gateId: g.id } } });
  });
});

describe("gates over gRPC (SdkWalletSignInService.Verify)", () => {
  it("PERMISSION_DENIED for a non-holder, UNAVAILABLE with retry-after for a node that is down", async () => {
    const client = createClient(SdkWalletSignInService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const t = await newTenant();
    await gate(t, "siteAccess", [{ type: "token", contract: evm.contracts.erc20, amount: 1 }]);
    const holder = newEvmWallet();
    await evm.mintErc20(holder.address, 1n);
    expect((await client.verify({ environmentId: t.environmentId, proof: await proofFor(t, holder) })).signIn?.jwt).toBeTruthy();
    const out = await client.verify({ environmentId: t.environmentId, proof: await proofFor(t, newEvmWallet()) }).catch((e) => e);
    expect(ConnectError.from(out).code).toBe(Code.PermissionDenied);
    const down = await newTenant();
    await gate(down, "siteAccess", [{ type: "token", contract: evm.contracts.erc20, amount: 1, networkId: DOWN_CHAIN_ID }]);
    const unavailable = await client.verify({ environmentId: down.environmentId, proof: await proofFor(down, newEvmWallet()) }).catch((e) => e);
    expect(ConnectError.from(unavailable).code).toBe(Code.Unavailable);
    expect(ConnectError.from(unavailable).metadata.get("retry-after")).toBeTruthy();
  });
});
