import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createClient, Code, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { SDKApi, SimulateTransactionResponse } from "@dynamic-labs/sdk-api";
import simpleAccountArtefact from "@account-abstraction/contracts/artifacts/SimpleAccount.json" with { type: "json" };
import { encodeErrorResult, encodeFunctionData, erc20Abi, erc721Abi, parseEther, type Abi, type Address, type Hex } from "viem";
import { entryPoint08Abi } from "viem/account-abstraction";
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHAIN_SETTINGS } from "../../src/config-chains.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkEvmSimulationService } from "../../src/gen/sigil/simulations/v0/sdk_evm_simulation_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { artefacts, startEvmChain, type EvmChain } from "./support/evm-chain.js";

/**
 * POST /sdk/{environmentId}/evm/simulateTransaction and /evm/simulateUserOp (the published client's
 * SDKApi.simulateEVMTransaction and simulateUserOp), against Hardhat's local chain: EDR has no
 * eth_simulateV1, so every simulation here also shows the fallback to debug_traceCall. Nothing simulated is
 * ever mined: the balances after each simulation are the ones before.
 */

let app: TestApp;
let evm: EvmChain;
let t: BootstrapResult;
let sdk: SDKApi;

const CHAIN_ID = 31337;
const TST = 10n ** 18n;
const freshAddress = () => privateKeyToAddress(generatePrivateKey());
const simpleAccountAbi = simpleAccountArtefact.abi as Abi;
const encodeErrorString = (reason: string) =>
  encodeErrorResult({ abi: [{ type: "error", name: "Error", inputs: [{ name: "message", type: "string" }] }], errorName: "Error", args: [reason] });

beforeAll(async () => {
  evm = await startEvmChain();
  app = await startTestApp({ chains: { ...DEFAULT_CHAIN_SETTINGS, evmRpcUrls: { [CHAIN_ID]: evm.rpcUrl } } }, { dispatcher: false });
  t = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
  sdk = sdkFor(app.baseUrl);
}, 90_000);
afterAll(async () => {
  await app?.stop();
  await evm?.close();
});

const simulate = (tx: { from: string; to: string; data?: string; value?: string; chainId?: string }, environmentId = t.environmentId) =>
  sdk.simulateEVMTransaction({ environmentId, simulateEVMTransactionRequest: { chainId: String(CHAIN_ID), data: "0x", value: "0", ...tx } });

/** The same call, raw: the fields the published client does not read (gasUsed, balanceChanges) are in its JSON. */
async function simulateRaw(tx: { from: string; to: string; data?: string; value?: string }) {
  const res = await sdk.simulateEVMTransactionRaw({ environmentId: t.environmentId, simulateEVMTransactionRequest: { chainId: String(CHAIN_ID), data: "0x", value: "0", ...tx } });
  return (await res.raw.json()) as SimulateTransactionResponse & { gasUsed: string; balanceChanges: { address: string; asset: { symbol: string; type: string }; rawDelta: string; tokenId?: string }[] };
}

const tokenBalance = (owner: Address) => evm.publicClient.readContract({ address: evm.contracts.erc20, abi: erc20Abi, functionName: "balanceOf", args: [owner] });

async function setChains(environmentId: string, token: string, chains: unknown[]) {
  const res = await call(app.baseUrl, "PUT", `/environments/${environmentId}`, { token, body: { chains } });
  expect(res.status, res.text).toBe(200);
}

describe("simulateEVMTransaction", () => {
  it("an ERC-20 transfer: the sender's token out with symbol and decimals, the recipient as counterparty, both changes, the gas; nothing mined", async () => {
    const holder = freshAddress();
    const recipient = freshAddress();
    await evm.mintErc20(holder, 10n * TST);
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [recipient, 4n * TST] });
    const res = await simulate({ from: holder.toLowerCase(), to: evm.contracts.erc20, data });
    expect(res.validation).toBeUndefined();
    expect(res.inAssets).toEqual([]);
    expect(res.outAssets).toEqual([
      {
        asset: { address: evm.contracts.erc20, chainId: CHAIN_ID, chainName: "EVM", decimals: 18, logoUrl: "", name: "Test Token", symbol: "TST", type: "ERC20" },
        transferIn: [],
        transferOut: [{ rawValue: "4000000000000000000", value: "4", summary: `Send 4 TST to ${recipient}` }],
      },
    ]);
    expect(res.counterparties).toEqual([recipient]);
    expect(res.showTotalFiat).toBe(false);
    const raw = await simulateRaw({ from: holder, to: evm.contracts.erc20, data });
    expect(raw.balanceChanges).toEqual([
      expect.objectContaining({ address: holder, rawDelta: "-4000000000000000000", asset: expect.objectContaining({ symbol: "TST", type: "ERC20" }) }),
      expect.objectContaining({ address: recipient, rawDelta: "4000000000000000000", asset: expect.objectContaining({ symbol: "TST", type: "ERC20" }) }),
    ]);
    expect(BigInt(raw.gasUsed)).toBeGreaterThan(21_000n);
    expect(await tokenBalance(holder)).toBe(10n * TST);
    expect(await tokenBalance(recipient)).toBe(0n);
  });

  it("a native value transfer: the sender's ether out (null address, the chain's currency), the recipient's in", async () => {
    const sender = evm.accounts[3]!.address;
    const recipient = freshAddress();
    const res = await simulate({ from: sender, to: recipient, value: parseEther("1.5").toString() });
    expect(res.validation).toBeUndefined();
    expect(res.outAssets).toEqual([
      {
        asset: { address: null, chainId: CHAIN_ID, chainName: "EVM", decimals: 18, logoUrl: "", name: "Ether", symbol: "ETH", type: "NATIVE" },
        transferIn: [],
        transferOut: [{ rawValue: "1500000000000000000", value: "1.5", summary: `Send 1.5 ETH to ${recipient}` }],
      },
    ]);
    expect(res.counterparties).toEqual([recipient]);
    const raw = await simulateRaw({ from: sender, to: recipient, value: "0x14d1120d7b160000" });
    expect(raw.balanceChanges.map((c) => [c.address, c.asset.type, c.rawDelta])).toEqual([
      [sender, "NATIVE", "-1500000000000000000"],
      [recipient, "NATIVE", "1500000000000000000"],
    ]);
    expect(raw.gasUsed).toBe("21000");
    expect(await evm.publicClient.getBalance({ address: recipient })).toBe(0n);
  });

  it("an ERC-721 transfer: the collection by name, the token id, and the receiving side for the recipient", async () => {
    const holder = freshAddress();
    const recipient = freshAddress();
    await evm.mintErc721(holder, 7001n);
    const data = encodeFunctionData({ abi: erc721Abi, functionName: "transferFrom", args: [holder, recipient, 7001n] });
    const raw = await simulateRaw({ from: holder, to: evm.contracts.erc721, data });
    expect(raw.validation).toBeUndefined();
    expect(raw.outAssets).toEqual([
      {
        asset: { address: evm.contracts.erc721, chainId: CHAIN_ID, chainName: "EVM", decimals: 0, logoUrl: "", name: "Test NFT", symbol: "TNFT", type: "ERC721" },
        transferIn: [],
        transferOut: [{ rawValue: "1", value: "1", tokenId: "7001", summary: `Send Test NFT #7001 to ${recipient}` }],
      },
    ]);
    expect(raw.balanceChanges.map((c) => [c.address, c.rawDelta, c.tokenId])).toEqual([
      [holder, "-1", "7001"],
      [recipient, "1", "7001"],
    ]);
  });

  it("an ERC-20 approval is reported as an exposure of the sender's tokens to the spender", async () => {
    const holder = freshAddress();
    const spender = freshAddress();
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [spender, 25n * TST] });
    const res = await simulate({ from: holder, to: evm.contracts.erc20, data });
    expect(res.assetExposures).toEqual([{ asset: expect.objectContaining({ symbol: "TST", type: "ERC20" }), spenderToInfo: { [spender]: { amount: "25" } } }]);
    expect(res.outAssets).toEqual([]);
  });

  it("a reverting call: no changes and the reason string (Error(string)), a custom error decoded with its arguments", async () => {
    const stranger = freshAddress();
    const mint = encodeFunctionData({ abi: artefacts.testToken.abi, functionName: "mint", args: [stranger, TST] });
    const res = await simulate({ from: stranger, to: evm.contracts.erc20, data: mint });
    expect(res.validation).toEqual({ result: "Error", reason: "TestToken: only the minter mints", description: "the transaction would revert: TestToken: only the minter mints", classification: "transaction_reverted" });
    expect(res.inAssets).toEqual([]);
    expect(res.outAssets).toEqual([]);
    const overdraw = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [freshAddress(), 5n] });
    const custom = await simulate({ from: stranger, to: evm.contracts.erc20, data: overdraw });
    expect(custom.validation).toMatchObject({ classification: "transaction_reverted", reason: `ERC20InsufficientBalance(${stranger}, 0, 5)` });
  });

  it("a value the sender does not hold fails as insufficient_funds (the same on every node)", async () => {
    const poor = freshAddress();
    const res = await simulate({ from: poor, to: freshAddress(), value: "1" });
    expect(res.validation).toMatchObject({ result: "Error", classification: "insufficient_funds" });
    expect(res.outAssets).toEqual([]);
  });
});

/** A SimpleAccount 0.8 that does not exist yet, owned by a fresh key, and a user operation that creates it. */
async function counterfactualAccount() {
  const owner = privateKeyToAccount(generatePrivateKey());
  const salt = 0n;
  const sender = (await evm.publicClient.readContract({
    address: evm.contracts.simpleAccountFactory,
    abi: artefacts.simpleAccountFactory.abi,
    functionName: "getAddress",
    args: [owner.address, salt],
  })) as Address;
  const factoryData = encodeFunctionData({ abi: artefacts.simpleAccountFactory.abi, functionName: "createAccount", args: [owner.address, salt] });
  return { owner, sender, factoryData };
}

async function userOperation(opts: { sender: Address; factoryData: Hex; callData: Hex; signer: ReturnType<typeof privateKeyToAccount>; maxFeePerGas?: bigint }) {
  const op = {
    sender: opts.sender,
    nonce: 0n,
    factory: evm.contracts.simpleAccountFactory,
    factoryData: opts.factoryData,
    callData: opts.callData,
    callGasLimit: 200_000n,
    verificationGasLimit: 600_000n,
    preVerificationGas: 60_000n,
    maxFeePerGas: opts.maxFeePerGas ?? 0n,
    maxPriorityFeePerGas: 0n,
    signature: "0x" as Hex,
  };
  const packed = {
    sender: op.sender,
    nonce: op.nonce,
    initCode: `${op.factory}${op.factoryData.slice(2)}` as Hex,
    callData: op.callData,
    accountGasLimits: `0x${op.verificationGasLimit.toString(16).padStart(32, "0")}${op.callGasLimit.toString(16).padStart(32, "0")}` as Hex,
    preVerificationGas: op.preVerificationGas,
    gasFees: `0x${op.maxPriorityFeePerGas.toString(16).padStart(32, "0")}${op.maxFeePerGas.toString(16).padStart(32, "0")}` as Hex,
    paymasterAndData: "0x" as Hex,
    signature: "0x" as Hex,
  };
  const hash = await evm.publicClient.readContract({ address: evm.contracts.entryPoint, abi: entryPoint08Abi, functionName: "getUserOpHash", args: [packed] });
  const signature = await opts.signer.sign({ hash });
  // The JSON-RPC form bundlers take: quantities as 0x strings.
  return Object.fromEntries(Object.entries({ ...op, signature }).map(([k, v]) => [k, typeof v === "bigint" ? `0x${v.toString(16)}` : v]));
}

const transferCall = (to: Address, amount: bigint) =>
  encodeFunctionData({ abi: simpleAccountAbi, functionName: "execute", args: [evm.contracts.erc20, 0n, encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, amount] })] });

const simulateOp = (operation: object, entryPoint: string = evm.contracts.entryPoint) =>
  sdk.simulateUserOp({ environmentId: t.environmentId, simulateUserOpRequest: { chainId: String(CHAIN_ID), entryPoint, operation, value: "0" } });

describe("simulateUserOp", () => {
  it("a SimpleAccount created by its factory (initCode) sending tokens: the account's TST out, the recipient as counterparty", async () => {
    const { owner, sender, factoryData } = await counterfactualAccount();
    const recipient = freshAddress();
    await evm.mintErc20(sender, 10n * TST);
    const operation = await userOperation({ sender, factoryData, callData: transferCall(recipient, 3n * TST), signer: owner });
    const res = await simulateOp(operation);
    expect(res.validation).toBeUndefined();
    expect(res.outAssets).toEqual([
      expect.objectContaining({ asset: expect.objectContaining({ address: evm.contracts.erc20, symbol: "TST", decimals: 18 }), transferOut: [expect.objectContaining({ rawValue: "3000000000000000000", value: "3" })] }),
    ]);
    expect(res.counterparties).toEqual([recipient]);
    expect(await evm.publicClient.getCode({ address: sender })).toBeUndefined();
    expect(await tokenBalance(sender)).toBe(10n * TST);
  });

  it("an operation that pays its gas from the account's balance: the prefund to the EntryPoint shows as ether out", async () => {
    const { owner, sender, factoryData } = await counterfactualAccount();
    await evm.transferNative(sender, parseEther("1"));
    const operation = await userOperation({ sender, factoryData, callData: transferCall(freshAddress(), 0n), signer: owner, maxFeePerGas: 10n ** 9n });
    const res = await simulateOp(operation);
    expect(res.validation).toBeUndefined();
    const prefund = (600_000n + 200_000n + 60_000n) * 10n ** 9n;
    expect(res.outAssets).toEqual([expect.objectContaining({ asset: expect.objectContaining({ type: "NATIVE", symbol: "ETH" }), transferOut: [expect.objectContaining({ rawValue: prefund.toString() })] })]);
    expect(res.counterparties).toEqual([evm.contracts.entryPoint]);
  });

  it("an operation the EntryPoint refuses answers its FailedOp reason: a wrong signature (AA24), no funds for the prefund (AA21)", async () => {
    const { sender, factoryData } = await counterfactualAccount();
    const badSig = await userOperation({ sender, factoryData, callData: transferCall(freshAddress(), 1n), signer: privateKeyToAccount(generatePrivateKey()) });
    const refusedSig = await simulateOp(badSig);
    expect(refusedSig.validation).toMatchObject({ result: "Error", reason: "AA24 signature error", classification: "user_operation_failed" });
    expect(refusedSig.outAssets).toEqual([]);
    const { owner, sender: poor, factoryData: poorFactoryData } = await counterfactualAccount();
    const unpaid = await userOperation({ sender: poor, factoryData: poorFactoryData, callData: transferCall(freshAddress(), 1n), signer: owner, maxFeePerGas: 10n ** 9n });
    expect((await simulateOp(unpaid)).validation).toMatchObject({ reason: "AA21 didn't pay prefund", classification: "user_operation_failed" });
  });

  it("an operation whose call reverts inside the EntryPoint: the inner reason, and no token moved", async () => {
    const { owner, sender, factoryData } = await counterfactualAccount();
    const operation = await userOperation({ sender, factoryData, callData: transferCall(freshAddress(), 5n), signer: owner });
    const res = await simulateOp(operation);
    expect(res.validation).toMatchObject({ classification: "user_operation_call_reverted", reason: `ERC20InsufficientBalance(${sender}, 0, 5)` });
    expect(res.outAssets).toEqual([]);
  });
});

/**
 * A node in front of the local chain that passes every call through and counts the methods asked; with
 * `simulateV1` it also answers eth_simulateV1 (which EDR lacks) as geth does, so the other path is exercised.
 */
async function frontNode(simulateV1?: (params: unknown[]) => unknown): Promise<{ url: string; asked: string[]; close(): Promise<void> }> {
  const asked: string[] = [];
  const server: Server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const msg = JSON.parse(body) as { id: number; method: string; params: unknown[] };
    asked.push(msg.method);
    if (msg.method === "eth_simulateV1" && simulateV1) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: simulateV1(msg.params) }));
      return;
    }
    const upstream = await fetch(evm.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body });
    res.writeHead(upstream.status, { "content-type": "application/json" }).end(await upstream.text());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asked,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

describe("which node method simulates", () => {
  it("a node without eth_simulateV1 is asked for it once, then debug_traceCall only", async () => {
    const front = await frontNode();
    try {
      const tenant = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
      await setChains(tenant.environmentId, tenant.token, [{ name: "EVM", enabled: true, networks: [{ networkId: CHAIN_ID, enabled: true, rpcUrl: front.url }] }]);
      for (let i = 0; i < 2; i++) {
        const res = await simulate({ from: evm.accounts[4]!.address, to: freshAddress(), value: "5" }, tenant.environmentId);
        expect(res.outAssets[0]?.transferOut[0]?.rawValue).toBe("5");
      }
      expect(front.asked.filter((m) => m === "eth_simulateV1")).toHaveLength(1);
      expect(front.asked.filter((m) => m === "debug_traceCall")).toHaveLength(2);
    } finally {
      await front.close();
    }
  });

  it("a node with eth_simulateV1 answers from it: traceTransfers' native moves and the token logs, a failed call's reason", async () => {
    const sender = freshAddress();
    const recipient = freshAddress();
    const word = (a: string) => `0x${a.slice(2).toLowerCase().padStart(64, "0")}`;
    const TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
    let fail = false;
    const front = await frontNode(() => [
      {
        number: "0x10",
        calls: fail
          ? [{ status: "0x0", returnData: "0x", gasUsed: "0x6000", logs: [], error: { code: 3, message: "execution reverted: nope", data: encodeErrorString("nope") } }]
          : [
              {
                status: "0x1",
                returnData: "0x",
                gasUsed: "0xc350",
                logs: [
                  { address: "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", topics: [TRANSFER, word(sender), word(recipient)], data: `0x${(7n).toString(16).padStart(64, "0")}` },
                  { address: evm.contracts.erc20.toLowerCase(), topics: [TRANSFER, word(sender), word(recipient)], data: `0x${(2n * TST).toString(16).padStart(64, "0")}` },
                ],
              },
            ],
      },
    ]);
    try {
      const tenant = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
      await setChains(tenant.environmentId, tenant.token, [{ name: "EVM", enabled: true, networks: [{ networkId: CHAIN_ID, enabled: true, rpcUrl: front.url }] }]);
      const res = await simulate({ from: sender, to: evm.contracts.erc20 }, tenant.environmentId);
      expect(res.outAssets.map((d) => [d.asset.type, d.asset.symbol, d.transferOut.map((x) => x.rawValue)])).toEqual([
        ["NATIVE", "ETH", ["7"]],
        ["ERC20", "TST", ["2000000000000000000"]],
      ]);
      expect(front.asked).not.toContain("debug_traceCall");
      fail = true;
      const failed = await simulate({ from: sender, to: evm.contracts.erc20 }, tenant.environmentId);
      expect(failed.validation).toMatchObject({ reason: "nope", classification: "transaction_reverted" });
    } finally {
      await front.close();
    }
  });
});

describe("bad input is answered 4xx with its code, never a 500", () => {
  const holder = freshAddress();
  const cases: [string, Record<string, string>, number, string][] = [
    ["malformed from", { from: "0x1234" }, 400, "invalid_address"],
    ["malformed to", { to: "not-an-address" }, 400, "invalid_address"],
    ["non-hex data", { data: "0xzz" }, 400, "invalid_hex_data"],
    ["odd-length data", { data: "0xabc" }, 400, "invalid_hex_data"],
    ["a negative value", { value: "-1" }, 400, "invalid_quantity"],
    ["a value past 2^256", { value: (2n ** 256n).toString() }, 400, "invalid_quantity"],
    ["a chain id that is no number", { chainId: "mainnet" }, 400, "invalid_chain_id"],
    ["a chain id of zero", { chainId: "0" }, 400, "invalid_chain_id"],
    ["a chain of another family", { chainId: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp" }, 422, "unsupported_chain"],
    ["a chain without a node", { chainId: "eip155:999999" }, 422, "not_configured"],
  ];
  for (const [what, change, status, code] of cases) {
    it(`${what}: ${status} ${code}`, async () => {
      const r = await refused(simulate({ from: holder, to: evm.contracts.erc20, ...change }));
      expect(r.status).toBe(status);
      expect(r.body).toMatchObject({ code, error: expect.any(String) });
    });
  }

  it("simulateUserOp: an operation that is no object or lacks a member (400), bad members (400), no EntryPoint there (422)", async () => {
    const { owner, sender, factoryData } = await counterfactualAccount();
    const good = await userOperation({ sender, factoryData, callData: transferCall(freshAddress(), 1n), signer: owner });
    const url = `/sdk/${t.environmentId}/evm/simulateUserOp`;
    const notObject = await call(app.baseUrl, "POST", url, { body: { chainId: "31337", entryPoint: evm.contracts.entryPoint, operation: "0x00", value: "0" } });
    expect(notObject.status).toBe(400);
    const bad: [object, number, string][] = [
      [{ ...good, sender: undefined }, 400, "invalid_user_operation"],
      [{ ...good, sender: "0x12" }, 400, "invalid_address"],
      [{ ...good, callData: "xyz" }, 400, "invalid_hex_data"],
      [{ ...good, nonce: "-5" }, 400, "invalid_quantity"],
      [{ ...good, callGasLimit: `0x1${"0".repeat(32)}` }, 400, "invalid_quantity"],
      [{ ...good, factory: undefined, factoryData: undefined, initCode: "0x1234" }, 400, "invalid_hex_data"],
    ];
    for (const [operation, status, code] of bad) {
      const r = await refused(simulateOp(operation));
      expect([r.status, r.body.code], JSON.stringify(operation)).toEqual([status, code]);
    }
    const noEntryPoint = await refused(simulateOp(good, freshAddress()));
    expect(noEntryPoint.status).toBe(422);
    expect(noEntryPoint.body.code).toBe("entry_point_not_deployed");
    const badEntryPoint = await refused(simulateOp(good, "0xnope"));
    expect([badEntryPoint.status, badEntryPoint.body.code]).toEqual([400, "invalid_address"]);
  });

  it("503 chain_unavailable with Retry-After when the node is down, for both operations", async () => {
    const doomed = await startEvmChain({ chainId: 31342 });
    const tenant = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
    await setChains(tenant.environmentId, tenant.token, [{ name: "EVM", enabled: true, networks: [{ networkId: 31342, enabled: true, rpcUrl: doomed.rpcUrl }] }]);
    await doomed.close();
    const tx = await refused(simulate({ from: holder, to: evm.contracts.erc20, chainId: "31342" }, tenant.environmentId));
    expect(tx.status).toBe(503);
    expect(tx.body.code).toBe("chain_unavailable");
    expect(Number(tx.headers.get("retry-after"))).toBeGreaterThan(0);
    const op = await refused(
      sdk.simulateUserOp({ environmentId: tenant.environmentId, simulateUserOpRequest: { chainId: "31342", entryPoint: evm.contracts.entryPoint, operation: { sender: holder, nonce: "0x0", callData: "0x", callGasLimit: "1", verificationGasLimit: "1", preVerificationGas: "1", maxFeePerGas: "0", maxPriorityFeePerGas: "0" }, value: "0" } }),
    );
    expect(op.status).toBe(503);
    expect(Number(op.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("SdkEvmSimulationService over gRPC", () => {
  it("SimulateEvmTransaction answers the same report, INVALID_ARGUMENT for a bad address, UNAVAILABLE for a node that is down", async () => {
    const client = createClient(SdkEvmSimulationService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const holder = freshAddress();
    const recipient = freshAddress();
    await evm.mintErc20(holder, 2n * TST);
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [recipient, TST] });
    const res = await client.simulateEvmTransaction({ environmentId: t.environmentId, chainId: "31337", from: holder, to: evm.contracts.erc20, data, value: "0" });
    expect(res.simulation?.outAssets.map((d) => [d.asset?.symbol, d.transferOut.map((x) => x.value)])).toEqual([["TST", ["1"]]]);
    expect(res.simulation?.balanceChanges.map((c) => [c.address, c.rawDelta])).toEqual([
      [holder, (-TST).toString()],
      [recipient, TST.toString()],
    ]);
    const bad = await client.simulateEvmTransaction({ environmentId: t.environmentId, chainId: "31337", from: "0x1", to: evm.contracts.erc20 }).catch((e) => e);
    expect(ConnectError.from(bad).code).toBe(Code.InvalidArgument);
    const doomed = await startEvmChain({ chainId: 31343 });
    const tenant = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
    await setChains(tenant.environmentId, tenant.token, [{ name: "EVM", enabled: true, networks: [{ networkId: 31343, enabled: true, rpcUrl: doomed.rpcUrl }] }]);
    await doomed.close();
    const down = await client.simulateEvmTransaction({ environmentId: tenant.environmentId, chainId: "31343", from: holder, to: evm.contracts.erc20 }).catch((e) => e);
    expect(ConnectError.from(down).code).toBe(Code.Unavailable);
    expect(ConnectError.from(down).metadata.get("retry-after")).toBeTruthy();
  });

  it("SimulateUserOp answers the account's changes, and the FailedOp reason for one the EntryPoint refuses", async () => {
    const client = createClient(SdkEvmSimulationService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const { owner, sender, factoryData } = await counterfactualAccount();
    const recipient = freshAddress();
    await evm.mintErc20(sender, 5n * TST);
    const operation = await userOperation({ sender, factoryData, callData: transferCall(recipient, 2n * TST), signer: owner });
    const res = await client.simulateUserOp({ environmentId: t.environmentId, chainId: "eip155:31337", entryPoint: evm.contracts.entryPoint, operation });
    expect(res.simulation?.validation).toBeUndefined();
    expect(res.simulation?.counterparties).toEqual([recipient]);
    expect(res.simulation?.outAssets.map((d) => [d.asset?.symbol, d.transferOut.map((x) => x.value)])).toEqual([["TST", ["2"]]]);
    const refusedOp = await client.simulateUserOp({ environmentId: t.environmentId, chainId: "31337", entryPoint: evm.contracts.entryPoint, operation: { ...operation, signature: "0x" } });
    expect(refusedOp.simulation?.validation?.classification).toBe("user_operation_failed");
  });
});
