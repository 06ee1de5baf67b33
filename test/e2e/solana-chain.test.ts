import { createServer } from "node:net";
import {
  type Address,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
  type TransactionMessageBytesBase64,
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  devnet,
  generateKeyPairSigner,
  getBase64Decoder,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  lamports,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageComputeUnitLimit,
  setTransactionMessageComputeUnitPrice,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SolanaChain, associatedTokenAddress, startSolanaChain, transferLamportsInstruction, transferTokensInstruction } from "./support/solana-chain.js";
import { signedTransaction } from "./support/solana-wire.js";

/** The local Solana chain (LiteSVM behind our JSON-RPC server), driven through @solana/kit's own RPC client. */
const SOL = 1_000_000_000n;
let chain: SolanaChain;
let rpc: ReturnType<typeof createSolanaRpc<ReturnType<typeof devnet>>>;

beforeAll(async () => {
  chain = await startSolanaChain();
  // A local cluster, typed as a test cluster (as kit's docs do for a local validator): requestAirdrop exists there.
  rpc = createSolanaRpc(devnet(chain.rpcUrl));
});
afterAll(() => chain?.close());

const signed = (payer: KeyPairSigner, instructions: Instruction[], lifetime?: { blockhash: string; lastValidBlockHeight: bigint }) =>
  signedTransaction(chain.rpcUrl, payer, instructions, { lifetime: lifetime as { blockhash: Blockhash; lastValidBlockHeight: bigint } | undefined });

const raw = (body: unknown) => fetch(chain.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json());

describe("the local Solana chain", () => {
  it("funds an address (requestAirdrop and the airdrop helper) and answers its balance with the slot it read", async () => {
    const wallet = await generateKeyPairSigner();
    const signature = await rpc.requestAirdrop(wallet.address, lamports(2n * SOL)).send();
    await chain.airdrop(wallet.address, 3n * SOL);
    const balance = await rpc.getBalance(wallet.address).send();
    expect(balance.value).toBe(5n * SOL);
    expect(balance.context.slot).toBe(await rpc.getSlot().send());
    const [status] = (await rpc.getSignatureStatuses([signature]).send()).value;
    expect(status).toMatchObject({ err: null, confirmationStatus: "finalized", status: { Ok: null } });
    expect((await rpc.getBalance((await generateKeyPairSigner()).address).send()).value).toBe(0n);

    // Too little for a new account's rent: the node still answers the signature; the status has the error.
    const tiny = await rpc.requestAirdrop((await generateKeyPairSigner()).address, lamports(1000n)).send();
    const [failed] = (await rpc.getSignatureStatuses([tiny]).send()).value;
    expect(failed?.err).toEqual({ InsufficientFundsForRent: { account_index: 1n } });
    const unknown = "1111111111111111111111111111111111111111111111111111111111111111";
    expect((await rpc.getSignatureStatuses([unknown as never]).send()).value).toEqual([null]);
  });

  it("lands a failing transaction sent without preflight: it pays its fee and its status carries the error", async () => {
    const [alice, bob] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    await chain.airdrop(alice.address, SOL);
    const tx = await signed(alice, [transferLamportsInstruction(alice, bob.address, 2n * SOL)]);
    const signature = await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: "base64", skipPreflight: true }).send();
    const [status] = (await rpc.getSignatureStatuses([signature]).send()).value;
    expect(status?.err).toEqual({ InstructionError: [0n, { Custom: 1n }] });
    expect((await rpc.getBalance(alice.address).send()).value).toBe(SOL - 5000n);
    const landed = await rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0, encoding: "base64" }).send();
    expect(landed?.transaction).toEqual([getBase64EncodedWireTransaction(tx), "base64"]);
    expect(landed?.meta?.logMessages?.join("\n")).toMatch(/insufficient lamports/);
  });

  it("lands a SOL transfer signed with @solana/kit: balances, status, fee and the transaction itself", async () => {
    const [alice, bob] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    await chain.airdrop(alice.address, 2n * SOL);
    const tx = await signed(alice, [transferLamportsInstruction(alice, bob.address, SOL / 2n)]);
    const { value: fee } = await rpc.getFeeForMessage(getBase64Decoder().decode(tx.messageBytes) as TransactionMessageBytesBase64).send();
    expect(fee).toBe(5000n);

    const signature = await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: "base64" }).send();
    expect(signature).toBe(getSignatureFromTransaction(tx));
    expect((await rpc.getBalance(bob.address).send()).value).toBe(SOL / 2n);
    expect((await rpc.getBalance(alice.address).send()).value).toBe(2n * SOL - SOL / 2n - 5000n);

    const [status] = (await rpc.getSignatureStatuses([signature]).send()).value;
    expect(status).toMatchObject({ err: null, confirmationStatus: "finalized" });
    const landed = await rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0, encoding: "json" }).send();
    expect(landed?.slot).toBe(status?.slot);
    expect(landed?.meta).toMatchObject({ err: null, fee: 5000n, preBalances: [2n * SOL, 0n, 1n], postBalances: [2n * SOL - SOL / 2n - 5000n, SOL / 2n, 1n] });
    expect(landed?.meta?.logMessages).toContain("Program 11111111111111111111111111111111 success");
    expect(landed?.transaction.message.accountKeys).toEqual([alice.address, bob.address, "11111111111111111111111111111111"]);
    // A version-0 transaction asked for without maxSupportedTransactionVersion: the node's -32015.
    expect(await raw({ jsonrpc: "2.0", id: 1, method: "getTransaction", params: [signature] })).toMatchObject({ error: { code: -32015 } });

    // The same transaction again is refused by the preflight, and a used blockhash stays valid for 150 blocks.
    const again = await raw({ jsonrpc: "2.0", id: 1, method: "sendTransaction", params: [getBase64EncodedWireTransaction(tx), { encoding: "base64" }] });
    expect(again.error).toMatchObject({ code: -32002, message: "Transaction simulation failed: This transaction has already been processed", data: { err: "AlreadyProcessed" } });
    expect((await rpc.isBlockhashValid((tx.lifetimeConstraint as { blockhash: Blockhash }).blockhash).send()).value).toBe(true);
  });

  it("charges the fee getFeeForMessage answers, the priority fee of the compute-budget instructions included", async () => {
    const [alice, bob] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    await chain.airdrop(alice.address, SOL);
    const { value: latest } = await rpc.getLatestBlockhash().send();
    const tx = await signTransactionMessageWithSigners(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(alice, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
        (m) => setTransactionMessageComputeUnitLimit(10_000, m),
        (m) => setTransactionMessageComputeUnitPrice(1_000n, m),
        (m) => appendTransactionMessageInstructions([transferLamportsInstruction(alice, bob.address, SOL / 2n)], m),
      ),
    );
    const { value: fee } = await rpc.getFeeForMessage(getBase64Decoder().decode(tx.messageBytes) as TransactionMessageBytesBase64).send();
    // 5000 per signature, and 1000 micro-lamports for each of the 10,000 units asked for: 10 lamports.
    expect(fee).toBe(5010n);
    await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: "base64" }).send();
    expect((await rpc.getBalance(alice.address).send()).value).toBe(SOL - SOL / 2n - 5010n);
  });

  it("holds SPL tokens: a mint, an associated token account, mintTo, a transfer, read back as jsonParsed", async () => {
    const [owner, friend] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    const mint = await chain.createMint({ decimals: 6 });
    const account = await chain.mintTo(mint, owner.address, 2_500_000n);
    expect(account).toBe(await associatedTokenAddress(owner.address, mint));

    const { value: held } = await rpc.getTokenAccountsByOwner(owner.address, { programId: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" as Address }, { encoding: "jsonParsed" }).send();
    expect(held).toHaveLength(1);
    expect(held[0]!.pubkey).toBe(account);
    expect(held[0]!.account.data.program).toBe("spl-token");
    expect(held[0]!.account.data.parsed.info).toMatchObject({ mint, owner: owner.address, state: "initialized", isNative: false, tokenAmount: { amount: "2500000", decimals: 6, uiAmount: 2.5, uiAmountString: "2.5" } });
    const { value: mintInfo } = await rpc.getAccountInfo(mint, { encoding: "jsonParsed" }).send();
    expect(mintInfo?.data).toMatchObject({ program: "spl-token", parsed: { type: "mint", info: { decimals: 6, supply: "2500000", isInitialized: true, freezeAuthority: null } } });
    // The owner sends some to a friend's token account, paying with its own SOL.
    await chain.airdrop(owner.address, SOL);
    // Not a token account: jsonParsed answers the bytes, base64, as the node does.
    expect((await rpc.getAccountInfo(owner.address, { encoding: "jsonParsed" }).send()).value?.data).toEqual(["", "base64"]);
    const friendAccount = await chain.mintTo(mint, friend.address, 0n);
    const tx = await signed(owner, [transferTokensInstruction(account, friendAccount, owner, 500_000n)]);
    await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: "base64" }).send();
    const { value: friends } = await rpc.getTokenAccountsByOwner(friend.address, { mint }, { encoding: "jsonParsed" }).send();
    expect(friends[0]!.account.data.parsed.info.tokenAmount).toMatchObject({ amount: "500000", uiAmountString: "0.5" });
    const landed = await rpc.getTransaction(getSignatureFromTransaction(tx), { maxSupportedTransactionVersion: 0, encoding: "json" }).send();
    const byOwner = (balances: readonly { owner?: Address; uiTokenAmount: { amount: string } }[] | undefined) => Object.fromEntries((balances ?? []).map((b) => [b.owner, b.uiTokenAmount.amount]));
    expect(byOwner(landed?.meta?.preTokenBalances)).toEqual({ [owner.address]: "2500000", [friend.address]: "0" });
    expect(byOwner(landed?.meta?.postTokenBalances)).toEqual({ [owner.address]: "2000000", [friend.address]: "500000" });

    // Token-2022 accounts are found under their own program id only.
    const mint2022 = await chain.createMint({ decimals: 0, tokenProgram: "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb" as Address });
    await chain.mintTo(mint2022, owner.address, 7n);
    const { value: held2022 } = await rpc.getTokenAccountsByOwner(owner.address, { programId: "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb" as Address }, { encoding: "jsonParsed" }).send();
    expect(held2022.map((a) => [a.account.data.program, a.account.data.parsed.info.tokenAmount.amount])).toEqual([["spl-token-2022", "7"]]);
    expect((await raw({ jsonrpc: "2.0", id: 1, method: "getTokenAccountsByOwner", params: [owner.address, { programId: owner.address }] })).error).toEqual({ code: -32602, message: "Invalid param: unrecognized Token program id" });
  });

  it("simulates a transfer (logs, units, fee, balances, accounts after) and a failing one (its error), changing nothing", async () => {
    const [alice, bob] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    await chain.airdrop(alice.address, SOL);
    const ok = await signed(alice, [transferLamportsInstruction(alice, bob.address, SOL / 4n)]);
    const { value: sim } = await rpc
      .simulateTransaction(getBase64EncodedWireTransaction(ok), { encoding: "base64", sigVerify: true, innerInstructions: true, accounts: { addresses: [bob.address], encoding: "base64" } })
      .send();
    expect(sim.err).toBeNull();
    expect(sim.logs).toEqual(["Program 11111111111111111111111111111111 invoke [1]", "Program 11111111111111111111111111111111 success"]);
    expect(sim.unitsConsumed).toBeGreaterThan(0n);
    expect(sim).toMatchObject({ fee: 5000n, preBalances: [SOL, 0n, 1n], postBalances: [SOL - SOL / 4n - 5000n, SOL / 4n, 1n], innerInstructions: [], replacementBlockhash: null });
    expect(sim.accounts[0]).toMatchObject({ lamports: SOL / 4n, owner: "11111111111111111111111111111111", data: ["", "base64"] });
    expect((await rpc.getBalance(bob.address).send()).value).toBe(0n);

    // Insufficient funds: the system program's custom error 1, with its log line.
    const broke = await signed(alice, [transferLamportsInstruction(alice, bob.address, 10n * SOL)]);
    const { value: failed } = await rpc.simulateTransaction(getBase64EncodedWireTransaction(broke), { encoding: "base64" }).send();
    // (kit reads every JSON integer of an error as a bigint.)
    expect(failed.err).toEqual({ InstructionError: [0n, { Custom: 1n }] });
    expect(failed.logs?.join("\n")).toMatch(/Transfer: insufficient lamports/);
    // sendTransaction runs the same simulation first and refuses with the node's preflight error.
    const preflight = await raw({ jsonrpc: "2.0", id: 7, method: "sendTransaction", params: [getBase64EncodedWireTransaction(broke), { encoding: "base64" }] });
    expect(preflight.error).toMatchObject({ code: -32002, message: "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1", data: { err: { InstructionError: [0, { Custom: 1 }] } } });
    expect((await rpc.getBalance(alice.address).send()).value).toBe(SOL);

    // A blockhash the chain never issued: BlockhashNotFound, unless the simulation replaces it.
    const stale = await signed(alice, [transferLamportsInstruction(alice, bob.address, SOL / 4n)], { blockhash: "4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY", lastValidBlockHeight: 0n });
    expect((await rpc.simulateTransaction(getBase64EncodedWireTransaction(stale), { encoding: "base64" }).send()).value.err).toBe("BlockhashNotFound");
    const { value: replaced } = await rpc.simulateTransaction(getBase64EncodedWireTransaction(stale), { encoding: "base64", replaceRecentBlockhash: true }).send();
    expect(replaced.err).toBeNull();
    expect(replaced.replacementBlockhash?.blockhash).toBe((await rpc.getLatestBlockhash().send()).value.blockhash);

    // An unsigned transaction simulates (sigVerify is off by default, as on a node) but not with sigVerify.
    const { value: latest } = await rpc.getLatestBlockhash().send();
    const unsigned = await partiallySignTransactionMessageWithSigners(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(alice, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
        (m) => appendTransactionMessageInstructions([transferLamportsInstruction(alice, bob.address, SOL / 4n)], m),
      ),
    );
    const wire = getBase64EncodedWireTransaction({ ...unsigned, signatures: { [alice.address]: null } });
    expect((await rpc.simulateTransaction(wire, { encoding: "base64" }).send()).value.err).toBeNull();
    expect((await raw({ jsonrpc: "2.0", id: 1, method: "simulateTransaction", params: [wire, { encoding: "base64", sigVerify: true }] })).error).toEqual({ code: -32003, message: "Transaction signature verification failure" });
  });

  it("answers the recent prioritization fees the test sets, and zero for each recent block by default", async () => {
    const quiet = await rpc.getRecentPrioritizationFees().send();
    expect(quiet.length).toBeGreaterThan(0);
    expect(quiet.every((f) => f.prioritizationFee === 0n)).toBe(true);
    chain.setPrioritizationFees([0n, 1000n, 25000n]);
    const slot = await rpc.getSlot().send();
    expect(await rpc.getRecentPrioritizationFees().send()).toEqual([
      { slot: slot - 2n, prioritizationFee: 0n },
      { slot: slot - 1n, prioritizationFee: 1000n },
      { slot, prioritizationFee: 25000n },
    ]);
  });

  it("speaks JSON-RPC 2.0 as the node does: unknown method, bad params, parse error, batches", async () => {
    expect(await raw({ jsonrpc: "2.0", id: 1, method: "getNothing", params: [] })).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } });
    expect(await raw({ jsonrpc: "2.0", id: 2, method: "getBalance", params: ["not-an-address"] })).toMatchObject({ id: 2, error: { code: -32602 } });
    expect(await raw({ jsonrpc: "2.0", id: 3, method: "getBalance", params: [] })).toMatchObject({ id: 3, error: { code: -32602 } });
    const parse = await fetch(chain.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: "{" }).then((r) => r.json());
    expect(parse).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    const batch = await raw([
      { jsonrpc: "2.0", id: "a", method: "getHealth" },
      { jsonrpc: "2.0", id: "b", method: "getVersion" },
      { jsonrpc: "2.0", id: "c", method: "nope" },
    ]);
    expect(batch).toMatchObject([{ id: "a", result: "ok" }, { id: "b", result: { "solana-core": expect.any(String) } }, { id: "c", error: { code: -32601 } }]);
    expect(await rpc.getMinimumBalanceForRentExemption(165n).send()).toBe(2039280n);
  });

  it("frees its port on close()", async () => {
    const other = await startSolanaChain();
    const port = Number(new URL(other.rpcUrl).port);
    await other.close();
    await expect(fetch(other.rpcUrl, { method: "POST", body: "{}" })).rejects.toThrow();
    const again = createServer();
    await new Promise<void>((resolve, reject) => again.once("error", reject).listen(port, "127.0.0.1", () => resolve()));
    await new Promise<void>((resolve) => again.close(() => resolve()));
  });
});
