import { createClient, Code, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  type Instruction,
  type KeyPairSigner,
  type V0CompiledTransactionMessage,
  createSolanaRpc,
  devnet,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  signTransaction,
} from "@solana/kit";
import type { SDKApi } from "@dynamic-labs/sdk-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHAIN_SETTINGS } from "../../src/config-chains.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkSolanaTransactionsService } from "../../src/gen/sigil/solana_transactions/v0/sdk_solana_transactions_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { type SolanaChain, associatedTokenAddress, startSolanaChain, transferLamportsInstruction, transferTokensInstruction } from "./support/solana-chain.js";
import { signedWire } from "./support/solana-wire.js";

/**
 * POST /sdk/{environmentId}/solana/simulateTransaction and /solana/optimizeTransaction (the published client's
 * SDKApi.simulateSVMTransaction and optimizeTransaction) against the local Solana chain (LiteSVM behind the
 * tests' JSON-RPC server), the operator's node for devnet (103), which the environment's settings enable.
 */

const SOL = 1_000_000_000n;
const COMPUTE_BUDGET = "ComputeBudget111111111111111111111111111111";
let app: TestApp;
let sol: SolanaChain;
let t: BootstrapResult;
let sdk: SDKApi;
let rpc: ReturnType<typeof createSolanaRpc<ReturnType<typeof devnet>>>;

beforeAll(async () => {
  sol = await startSolanaChain();
  rpc = createSolanaRpc(devnet(sol.rpcUrl));
  app = await startTestApp({ chains: { ...DEFAULT_CHAIN_SETTINGS, solanaRpcUrls: { 103: sol.rpcUrl } } }, { dispatcher: false });
  t = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
  const set = await call(app.baseUrl, "PUT", `/environments/${t.environmentId}`, { token: t.token, body: { chains: [{ name: "SOL", enabled: true, networks: [{ networkId: 103, enabled: true }] }] } });
  expect(set.status, set.text).toBe(200);
  sdk = sdkFor(app.baseUrl);
}, 90_000);
afterAll(async () => {
  await app?.stop();
  await sol?.close();
});

/** A signed v0 transaction of `payer`, as base64 wire bytes. */
const wireOf = (payer: KeyPairSigner, instructions: Instruction[], computeUnitLimit?: number) => signedWire(sol.rpcUrl, payer, instructions, { computeUnitLimit });

async function funded(lamports = 5n * SOL) {
  const signer = await generateKeyPairSigner();
  await sol.airdrop(signer.address, lamports);
  return signer;
}

const simulate = (transactions: string[], accountAddress: string, chain = "103") =>
  sdk.simulateSVMTransaction({ environmentId: t.environmentId, simulateSVMTransactionRequest: { chain, transactions, accountAddress, method: "signAndSendTransaction" } });

describe("simulateSVMTransaction", () => {
  it("answers a SOL transfer's change for the sender and the receiver (fee left out), with its logs, changing nothing", async () => {
    const sender = await funded();
    const receiver = (await generateKeyPairSigner()).address;
    const tx = await wireOf(sender, [transferLamportsInstruction(sender, receiver, 1_500_000_000n)]);
    const out = await simulate([tx], sender.address);
    expect(out.outAssets).toEqual([
      {
        asset: { address: "11111111111111111111111111111111", chainId: 103, chainName: "SOL", decimals: 9, logoUrl: "", name: "Solana", symbol: "SOL", type: "NATIVE" },
        transferIn: [],
        transferOut: [{ rawValue: "1500000000", value: "1.5", summary: "Send 1.5 SOL" }],
      },
    ]);
    expect(out.inAssets).toEqual([]);
    expect(out.counterparties).toEqual([receiver]);
    expect(out.validation).toBeUndefined();
    expect(out.showTotalFiat).toBe(false);
    const inbound = await simulate([tx], receiver, "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1");
    expect(inbound.inAssets.map((d) => [d.asset.symbol, d.transferIn[0]!.value])).toEqual([["SOL", "1.5"]]);
    expect(inbound.counterparties).toEqual([sender.address]);
    // Beyond the client's model: the node's logs and cost, per transaction.
    const raw = await call(app.baseUrl, "POST", `/sdk/${t.environmentId}/solana/simulateTransaction`, { body: { chain: "SOL", transactions: [tx], accountAddress: sender.address, method: "x" } });
    expect(raw.status, raw.text).toBe(200);
    // The wire JSON is the EVM answer's shape (sigil.simulations.v0's parts): no usdPrice, tokenId or null address.
    expect(Object.keys(raw.body).sort()).toEqual(["counterparties", "inAssets", "outAssets", "priceData", "showTotalFiat", "simulations"]);
    expect({ inAssets: raw.body.inAssets, outAssets: raw.body.outAssets, priceData: raw.body.priceData }).toEqual({ inAssets: [], outAssets: out.outAssets, priceData: {} });
    expect(raw.body.simulations).toEqual([expect.objectContaining({ logs: expect.arrayContaining(["Program 11111111111111111111111111111111 success"]) })]);
    expect(raw.body.simulations[0].error).toBeUndefined();
    // Simulation changed nothing.
    expect((await rpc.getBalance(receiver).send()).value).toBe(0n);
  });

  it("answers an SPL transfer's token change (mint, decimals) for both owners", async () => {
    const sender = await funded();
    const receiver = await generateKeyPairSigner();
    const mint = await sol.createMint({ decimals: 6 });
    const from = await sol.mintTo(mint, sender.address, 5_000_000n);
    const to = await sol.mintTo(mint, receiver.address, 0n);
    expect(to).toBe(await associatedTokenAddress(receiver.address, mint));
    const tx = await wireOf(sender, [transferTokensInstruction(from, to, sender, 1_250_000n)]);
    const out = await simulate([tx], sender.address);
    expect(out.outAssets).toEqual([
      { asset: expect.objectContaining({ address: mint, decimals: 6, type: "SPL", chainName: "SOL" }), transferIn: [], transferOut: [{ rawValue: "1250000", value: "1.25", summary: `Send 1.25 ${mint}` }] },
    ]);
    expect(out.counterparties).toEqual([receiver.address]);
    const inbound = await simulate([tx], receiver.address);
    expect(inbound.inAssets.map((d) => [d.asset.address, d.transferIn[0]!.rawValue])).toEqual([[mint, "1250000"]]);
  });

  it("a failing transaction moves nothing: validation names the error, the logs say why", async () => {
    const poor = await funded(SOL);
    const tx = await wireOf(poor, [transferLamportsInstruction(poor, (await generateKeyPairSigner()).address, 10n * SOL)]);
    const raw = await call(app.baseUrl, "POST", `/sdk/${t.environmentId}/solana/simulateTransaction`, { body: { chain: "devnet", transactions: [tx], accountAddress: poor.address, method: "x" } });
    expect(raw.status, raw.text).toBe(200);
    expect(raw.body).toMatchObject({ inAssets: [], outAssets: [], validation: { result: "Warning", classification: "simulation_failed", reason: "InstructionError" } });
    expect(raw.body.validation.description).toContain('{"InstructionError":[0,{"Custom":1}]}');
    expect(raw.body.simulations[0].error).toBe('{"InstructionError":[0,{"Custom":1}]}');
    expect(raw.body.simulations[0].logs.join("\n")).toContain("insufficient lamports");
    const viaClient = await simulate([tx], poor.address);
    expect(viaClient.validation).toEqual({ result: "Warning", classification: "simulation_failed", reason: "InstructionError", description: expect.any(String) });
  });
});

describe("optimizeTransaction", () => {
  it("sets the compute-unit limit from a simulation (+10%) and the median of the recent fees the node reports; the signed result lands", async () => {
    const payer = await funded();
    const receiver = (await generateKeyPairSigner()).address;
    sol.setPrioritizationFees([500n, 100n, 300n, 200n, 400n]);
    try {
      // The transaction comes with a limit of its own, which is replaced.
      const tx = await wireOf(payer, [transferLamportsInstruction(payer, receiver, SOL)], 999);
      const { transaction } = await sdk.optimizeTransaction({ environmentId: t.environmentId, solanaTransactionOptimizationRequest: { transaction: tx, address: payer.address } });
      const decoded = getTransactionDecoder().decode(getBase64Encoder().encode(transaction));
      expect(Object.values(decoded.signatures)).toEqual([null]);
      const message = getCompiledTransactionMessageDecoder().decode(decoded.messageBytes) as V0CompiledTransactionMessage;
      const budget = message.instructions.filter((ix) => message.staticAccounts[ix.programAddressIndex] === COMPUTE_BUDGET).map((ix) => [...(ix.data ?? [])]);
      expect(budget.map((d) => d[0])).toEqual([2, 3]);
      const limit = new DataView(new Uint8Array(budget[0]!).buffer).getUint32(1, true);
      const price = new DataView(new Uint8Array(budget[1]!).buffer).getBigUint64(1, true);
      expect(price).toBe(300n);
      // The units the optimized transaction consumes, as the node says, plus 10%.
      const sim = await rpc.simulateTransaction(transaction as never, { encoding: "base64", sigVerify: false, replaceRecentBlockhash: true }).send();
      expect(sim.value.err).toBeNull();
      expect(limit).toBe(Math.ceil(Number(sim.value.unitsConsumed) * 1.1));
      expect(message.instructions).toHaveLength(3);
      // Signed by the payer, it lands and pays the fee it asks for.
      const signed = await signTransaction([payer.keyPair], decoded as never);
      const wire = getBase64EncodedWireTransaction(signed);
      await rpc.sendTransaction(wire, { encoding: "base64" }).send();
      expect((await rpc.getBalance(receiver).send()).value).toBe(SOL);
    } finally {
      sol.setPrioritizationFees([]);
    }
  });

  it("422 simulation_failed with the node's error and logs for a transaction that fails; 400 address_not_signer", async () => {
    const poor = await funded(SOL);
    const tx = await wireOf(poor, [transferLamportsInstruction(poor, (await generateKeyPairSigner()).address, 10n * SOL)]);
    // The error's instruction index counts the compute-unit limit set first.
    const failed = await refused(sdk.optimizeTransaction({ environmentId: t.environmentId, solanaTransactionOptimizationRequest: { transaction: tx, address: poor.address } }));
    expect(failed.status).toBe(422);
    expect(failed.body).toMatchObject({ code: "simulation_failed", payload: { error: { InstructionError: [1, { Custom: 1 }] } } });
    expect(failed.body.payload.logs.join("\n")).toContain("insufficient lamports");
    const stranger = (await generateKeyPairSigner()).address;
    const notSigner = await refused(sdk.optimizeTransaction({ environmentId: t.environmentId, solanaTransactionOptimizationRequest: { transaction: tx, address: stranger } }));
    expect(notSigner.status).toBe(400);
    expect(notSigner.body).toMatchObject({ code: "address_not_signer", payload: { field: "address" } });
  });
});

describe("bad input and a node that is down, never a 500", () => {
  it("400 invalid_solana_transaction for bad base64, bytes that are not a transaction, and a transaction larger than a node takes", async () => {
    const someone = (await generateKeyPairSigner()).address;
    const tooLarge = Buffer.alloc(1300, 1).toString("base64");
    for (const transaction of ["%%%not base64%%%", Buffer.from("hello, not a transaction").toString("base64"), tooLarge]) {
      const sim = await refused(simulate([transaction], someone));
      expect(sim.status, JSON.stringify(sim.body)).toBe(400);
      expect(sim.body).toMatchObject({ code: "invalid_solana_transaction", payload: { field: "transactions[0]" } });
      const opt = await refused(sdk.optimizeTransaction({ environmentId: t.environmentId, solanaTransactionOptimizationRequest: { transaction, address: someone } }));
      expect(opt.status).toBe(400);
      expect(opt.body).toMatchObject({ code: "invalid_solana_transaction", payload: { field: "transaction" } });
    }
  });

  it("400 invalid_wallet_address, 400 validation_error past 5 transactions, 422 unsupported_chain for a chain that is not a cluster", async () => {
    const payer = await funded();
    const tx = await wireOf(payer, [transferLamportsInstruction(payer, payer.address, 1n)]);
    const badAddress = await refused(simulate([tx], "0x1234"));
    expect(badAddress.status).toBe(400);
    expect(badAddress.body).toMatchObject({ code: "invalid_wallet_address", payload: { field: "accountAddress" } });
    const many = await refused(simulate(Array(6).fill(tx), payer.address));
    expect(many.status).toBe(400);
    expect(many.body.code).toBe("validation_error");
    const none = await refused(simulate([], payer.address));
    expect(none.status).toBe(400);
    const evm = await refused(simulate([tx], payer.address, "eip155:1"));
    expect(evm.status).toBe(422);
    expect(evm.body.code).toBe("unsupported_chain");
    const mainnet = await refused(simulate([tx], payer.address, "mainnet-beta"));
    expect(mainnet.status).toBe(422);
    expect(mainnet.body.code).toBe("not_configured");
  });

  it("503 chain_unavailable with Retry-After when the node is down", async () => {
    const doomed = await startSolanaChain();
    const tenant = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
    const set = await call(app.baseUrl, "PUT", `/environments/${tenant.environmentId}`, {
      token: tenant.token,
      body: { chains: [{ name: "SOL", enabled: true, networks: [{ networkId: 102, enabled: true, rpcUrl: doomed.rpcUrl }] }] },
    });
    expect(set.status, set.text).toBe(200);
    await doomed.close();
    const payer = await generateKeyPairSigner();
    const tx = await wireOf(payer, [transferLamportsInstruction(payer, payer.address, 1n)]);
    for (const ask of [
      () => sdk.simulateSVMTransaction({ environmentId: tenant.environmentId, simulateSVMTransactionRequest: { chain: "102", transactions: [tx], accountAddress: payer.address, method: "x" } }),
      () => sdk.optimizeTransaction({ environmentId: tenant.environmentId, solanaTransactionOptimizationRequest: { transaction: tx, address: payer.address } }),
    ]) {
      const r = await refused(ask());
      expect(r.status).toBe(503);
      expect(r.body.code).toBe("chain_unavailable");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    }
  });
});

describe("SdkSolanaTransactionsService over gRPC", () => {
  it("simulates and optimizes; INVALID_ARGUMENT for a bad transaction", async () => {
    const client = createClient(SdkSolanaTransactionsService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const payer = await funded();
    const receiver = (await generateKeyPairSigner()).address;
    const tx = await wireOf(payer, [transferLamportsInstruction(payer, receiver, 2n * SOL)]);
    const sim = await client.simulateSvmTransaction({ environmentId: t.environmentId, chain: "103", transactions: [tx], accountAddress: payer.address });
    expect(sim.outAssets.map((d) => [d.asset?.symbol, d.transferOut[0]?.rawValue])).toEqual([["SOL", "2000000000"]]);
    expect(sim.simulations[0]?.unitsConsumed).toBeGreaterThan(0n);
    const opt = await client.optimizeTransaction({ environmentId: t.environmentId, transaction: tx, address: payer.address });
    expect(opt.transaction).not.toBe(tx);
    const bad = ConnectError.from(await client.optimizeTransaction({ environmentId: t.environmentId, transaction: "AAAA", address: payer.address }).catch((e) => e));
    expect(bad.code).toBe(Code.InvalidArgument);
  });
});
