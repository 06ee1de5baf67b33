import { createClient, Code, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ChainEnum, WalletTransactionType, type SDKApi } from "@dynamic-labs/sdk-api";
import { type Instruction, type KeyPairSigner, createSolanaRpc, devnet, generateKeyPairSigner } from "@solana/kit";
import { erc20Abi, type Address } from "viem";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHAIN_SETTINGS } from "../../src/config-chains.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkWalletTransactionsService } from "../../src/gen/sigil/wallet_transactions/v0/sdk_wallet_transactions_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";
import { startEvmChain, type EvmChain } from "./support/evm-chain.js";
import { type SolanaChain, startSolanaChain, transferLamportsInstruction, transferTokensInstruction } from "./support/solana-chain.js";
import { signedWire } from "./support/solana-wire.js";

/**
 * GET /sdk/{environmentId}/chains/{chainName}/transactions/{address} (the published client's
 * SDKApi.getWalletTransactions) for a signed-in user, after real transfers on the local EVM chain (Hardhat,
 * 31337) and the local Solana chain (LiteSVM, devnet 103), both the operator's nodes.
 */

const ETHER = 10n ** 18n;
const SOL = 1_000_000_000n;
let app: TestApp;
let evm: EvmChain;
let sol: SolanaChain;
let t: BootstrapResult;
let jwt: string;
let sdk: SDKApi;

beforeAll(async () => {
  [evm, sol] = await Promise.all([startEvmChain(), startSolanaChain()]);
  app = await startTestApp({ chains: { ...DEFAULT_CHAIN_SETTINGS, evmRpcUrls: { 31337: evm.rpcUrl }, solanaRpcUrls: { 103: sol.rpcUrl } } }, { dispatcher: false });
  t = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
  jwt = (await signInAs(app, t.environmentId)).jwt;
  sdk = sdkFor(app.baseUrl, jwt);
}, 90_000);
afterAll(async () => {
  await app?.stop();
  await Promise.all([evm?.close(), sol?.close()]);
});

const list = (chainName: ChainEnum, address: string, networkId: number, more: { limit?: number; offset?: string } = {}) =>
  sdk.getWalletTransactions({ environmentId: t.environmentId, chainName, address, networkId, ...more });

describe("getWalletTransactions on an EVM chain (a node without an index)", () => {
  it("lists native, ERC-20, ERC-721 and ERC-1155 transfers to and from the address, newest first, with labels, amounts and blocks", async () => {
    const key = generatePrivateKey();
    const holder = { address: privateKeyToAddress(key), privateKey: key };
    const other = privateKeyToAddress(generatePrivateKey());
    const funding = await evm.transferNative(holder.address, 2n * ETHER);
    await evm.mintErc20(holder.address, 5n * ETHER);
    await evm.mintErc721(holder.address, 77n);
    await evm.mintErc1155(holder.address, 9n, 3n);
    await evm.transferNative(other, ETHER / 2n, holder);
    const hash = await evm.walletClient(holder).writeContract({ address: evm.contracts.erc20, abi: erc20Abi, functionName: "transfer", args: [other, ETHER] });
    const sent = await evm.publicClient.waitForTransactionReceipt({ hash });

    const { transactions, nextOffset } = await list(ChainEnum.Evm, holder.address.toLowerCase(), 31337);
    expect(transactions.map((tx) => [tx.labels, tx.assetTransfers.map((a) => [a.tokenAddress, a.fromAddress, a.toAddress, a.amount, a.metadata?.symbol])])).toEqual([
      [[WalletTransactionType.Sent], [[evm.contracts.erc20, holder.address, other, 1, "TST"]]],
      [[WalletTransactionType.Sent], [[undefined, holder.address, other, 0.5, "ETH"]]],
      [[WalletTransactionType.Receive], [[evm.contracts.erc1155, "0x0000000000000000000000000000000000000000", holder.address, 3, undefined]]],
      [[WalletTransactionType.Receive], [[evm.contracts.erc721, "0x0000000000000000000000000000000000000000", holder.address, 1, undefined]]],
      [[WalletTransactionType.Receive], [[evm.contracts.erc20, "0x0000000000000000000000000000000000000000", holder.address, 5, "TST"]]],
      [[WalletTransactionType.Receive], [[undefined, evm.accounts[0]!.address, holder.address, 2, "ETH"]]],
    ]);
    const [newest] = transactions;
    const block = await evm.publicClient.getBlock({ blockNumber: sent.blockNumber });
    expect(newest).toMatchObject({ transactionHash: hash, blockNumber: Number(sent.blockNumber), blockHash: block.hash, fromAddress: holder.address, toAddress: evm.contracts.erc20, chainName: "EVM", networkId: 31337 });
    expect(newest!.transactionTimestamp.getTime()).toBe(Number(block.timestamp) * 1000);
    expect(transactions.at(-1)!.transactionHash).toBe(funding.transactionHash);
    // The local chain is younger than one window: nothing older to read.
    expect(nextOffset).toBeUndefined();
  });

  it("pages by block: limit cuts at a block, nextOffset continues below it", async () => {
    const holder = privateKeyToAddress(generatePrivateKey());
    for (let i = 1n; i <= 3n; i++) await evm.transferNative(holder, i * ETHER);
    const first = await list(ChainEnum.Evm, holder, 31337, { limit: 2 });
    expect(first.transactions.map((tx) => tx.assetTransfers[0]!.amount)).toEqual([3, 2]);
    expect(first.nextOffset).toBe(String(first.transactions[1]!.blockNumber));
    const second = await list(ChainEnum.Evm, holder, 31337, { limit: 2, offset: first.nextOffset });
    expect(second.transactions.map((tx) => tx.assetTransfers[0]!.amount)).toEqual([1]);
  });
});

const sendSol = async (payer: KeyPairSigner, instructions: Instruction[]) =>
  createSolanaRpc(devnet(sol.rpcUrl)).sendTransaction(await signedWire(sol.rpcUrl, payer, instructions), { encoding: "base64" }).send();

describe("getWalletTransactions on Solana", () => {
  it("lists SOL and SPL transfers from the node's address index, newest first, the fee left out, paged by signature", async () => {
    const owner = await generateKeyPairSigner();
    const friend = await generateKeyPairSigner();
    const airdrop = await sol.airdrop(owner.address, 3n * SOL);
    const mint = await sol.createMint({ decimals: 6 });
    const ownerTokens = await sol.mintTo(mint, owner.address, 4_000_000n);
    const friendTokens = await sol.mintTo(mint, friend.address, 0n);
    const sentSol = await sendSol(owner, [transferLamportsInstruction(owner, friend.address, SOL / 4n)]);
    const sentTokens = await sendSol(owner, [transferTokensInstruction(ownerTokens, friendTokens, owner, 1_500_000n)]);

    const { transactions, nextOffset } = await list(ChainEnum.Sol, owner.address, 103);
    expect(transactions.map((tx) => tx.transactionHash)).toHaveLength(4);
    expect(transactions[0]).toMatchObject({ transactionHash: sentTokens, fromAddress: owner.address, toAddress: friend.address, labels: ["sent"], chainName: "SOL", networkId: 103 });
    expect(transactions[0]!.assetTransfers).toEqual([{ tokenAddress: mint, fromAddress: owner.address, toAddress: friend.address, amount: 1.5, metadata: { decimals: 6 } }]);
    expect(transactions[1]).toMatchObject({ transactionHash: sentSol, labels: ["sent"] });
    expect(transactions[1]!.assetTransfers).toEqual([{ fromAddress: owner.address, toAddress: friend.address, amount: 0.25, metadata: { name: "Solana", symbol: "SOL", decimals: 9 } }]);
    expect(transactions[2]!.labels).toEqual(["receive"]);
    expect(transactions[2]!.assetTransfers).toEqual([expect.objectContaining({ tokenAddress: mint, toAddress: owner.address, amount: 4 })]);
    expect(transactions[3]).toMatchObject({ transactionHash: airdrop, labels: ["receive"] });
    expect(transactions[3]!.assetTransfers).toEqual([expect.objectContaining({ toAddress: owner.address, amount: 3 })]);
    expect(transactions[0]!.transactionTimestamp.getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(nextOffset).toBeUndefined();

    const page1 = await list(ChainEnum.Sol, owner.address, 103, { limit: 3 });
    expect(page1.nextOffset).toBe(transactions[2]!.transactionHash);
    const page2 = await list(ChainEnum.Sol, owner.address, 103, { limit: 3, offset: page1.nextOffset });
    expect(page2.transactions.map((tx) => tx.transactionHash)).toEqual([airdrop]);
  });
});

describe("bad input, no session, a node that is down: never a 500", () => {
  it("400 invalid_wallet_address / invalid_limit / invalid_offset, 422 unsupported_chain / not_configured, 401 without a session", async () => {
    const holder = privateKeyToAddress(generatePrivateKey());
    const someone = (await generateKeyPairSigner()).address;
    const cases: [() => Promise<unknown>, number, string][] = [
      [() => list(ChainEnum.Evm, "0x1234", 31337), 400, "invalid_wallet_address"],
      [() => list(ChainEnum.Sol, "not-base58-0OIl", 103), 400, "invalid_wallet_address"],
      [() => list(ChainEnum.Evm, holder, 31337, { limit: 51 }), 400, "invalid_limit"],
      [() => list(ChainEnum.Evm, holder, 31337, { offset: "yesterday" }), 400, "invalid_offset"],
      [() => list(ChainEnum.Sol, someone, 103, { offset: "0x12" }), 400, "invalid_offset"],
      [() => list(ChainEnum.Flow, holder, 1), 422, "unsupported_chain"],
      [() => list(ChainEnum.Evm, holder, 5), 422, "not_configured"],
    ];
    for (const [ask, status, code] of cases) {
      const r = await refused(ask());
      expect([r.status, r.body?.code]).toEqual([status, code]);
    }
    const anonymous = await refused(sdkFor(app.baseUrl).getWalletTransactions({ environmentId: t.environmentId, chainName: ChainEnum.Evm, address: holder, networkId: 31337 }));
    expect(anonymous.status).toBe(401);
  });

  it("503 chain_unavailable with Retry-After when the node is down", async () => {
    const doomed = await startEvmChain({ chainId: 31345 });
    const tenant = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
    const set = await call(app.baseUrl, "PUT", `/environments/${tenant.environmentId}`, {
      token: tenant.token,
      body: { chains: [{ name: "EVM", enabled: true, networks: [{ networkId: 31345, enabled: true, rpcUrl: doomed.rpcUrl }] }] },
    });
    expect(set.status, set.text).toBe(200);
    await doomed.close();
    const user = await signInAs(app, tenant.environmentId);
    const r = await refused(sdkFor(app.baseUrl, user.jwt).getWalletTransactions({ environmentId: tenant.environmentId, chainName: ChainEnum.Evm, address: privateKeyToAddress(generatePrivateKey()), networkId: 31345 }));
    expect(r.status).toBe(503);
    expect(r.body.code).toBe("chain_unavailable");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("SdkWalletTransactionsService over gRPC", () => {
  it("answers the same list for a session, UNAUTHENTICATED without one", async () => {
    const client = createClient(SdkWalletTransactionsService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const holder = privateKeyToAddress(generatePrivateKey()) as Address;
    await evm.transferNative(holder, 4n * ETHER);
    const res = await client.getWalletTransactions({ environmentId: t.environmentId, chainName: "EVM", address: holder, networkId: 31337n }, { headers: { authorization: `Bearer ${jwt}` } });
    expect(res.transactions.map((tx) => [tx.labels, tx.assetTransfers[0]?.amount])).toEqual([[["receive"], 4]]);
    const anonymous = ConnectError.from(await client.getWalletTransactions({ environmentId: t.environmentId, chainName: "EVM", address: holder, networkId: 31337n }).catch((e) => e));
    expect(anonymous.code).toBe(Code.Unauthenticated);
  });
});
