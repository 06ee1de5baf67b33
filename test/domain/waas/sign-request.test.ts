import { base58, base64 } from "@scure/base";
import { encodeFunctionData, erc20Abi, hashMessage, hashTypedData, keccak256, parseTransaction, serializeTransaction } from "viem";
import { describe, expect, it } from "vitest";
import { DomainError } from "../../../src/errors.js";
import { prepareSignature } from "../../../src/domain/waas/sign-request.js";
import {
  createAccount,
  createAccountWithSeed,
  randomSolanaAddress,
  solanaTransaction,
  splTransfer,
  systemTransfer,
  transferWithSeed,
} from "../../support/solana-tx.js";

/** What each kind of request signs, compared with viem's own hashing, and what bad input answers. */
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e instanceof DomainError ? `${e.kind}:${e.code}` : String(e);
  }
  return "no error";
};

describe("prepareSignature", () => {
  it("EVM: EIP-191 text and raw messages, typed data and transactions hash as viem does; policy facts in native units", () => {
    expect(prepareSignature("EVM", { message: "hi" }).prepared).toMatchObject({ digest: hashMessage("hi"), kind: "message" });
    expect(prepareSignature("EVM", { message: "", context: { evmMessage: { raw: "0x0102" } } }).prepared).toMatchObject({ digest: hashMessage({ raw: "0x0102" }) });
    const typed = { domain: { name: "A", chainId: 1 }, types: { M: [{ name: "x", type: "uint256" }] }, primaryType: "M", message: { x: 1 } };
    expect(prepareSignature("EVM", { message: "", context: { evmTypedData: typed } }).prepared).toMatchObject({ digest: hashTypedData(typed as never), kind: "typedData" });
    const { prepared, requests } = prepareSignature("EVM", { message: "", context: { evmTransaction: { to: "0x000000000000000000000000000000000000dEaD", chainId: 10, value: "1500000000000000000", gasPrice: "1" } } });
    const serialized = serializeTransaction({ type: "legacy", chainId: 10, to: "0x000000000000000000000000000000000000dEaD", value: 1500000000000000000n, gasPrice: 1n });
    expect(prepared).toMatchObject({ digest: keccak256(serialized), serialized, kind: "transaction" });
    expect(requests).toEqual([{ chain: "EVM", chainId: 10, method: "signTransaction", recipients: ["0x000000000000000000000000000000000000dEaD"], value: "1.5" }]);
  });

  it("Solana: the UTF-8 text, or a formatted message's bytes", () => {
    expect(prepareSignature("SOL", { message: "hé" }).prepared).toMatchObject({ message: Buffer.from("hé").toString("hex"), scheme: "frost-ed25519" });
    expect(prepareSignature("SOL", { message: "0x0a0b", isFormatted: true }).prepared).toMatchObject({ message: "0a0b" });
  });

  it("refuses malformed input with 400/422, never 500", () => {
    expect(codeOf(() => prepareSignature("EVM", { message: "" }))).toBe("bad_request:invalid_sign_request");
    expect(codeOf(() => prepareSignature("EVM", { message: "", context: { evmMessage: { raw: "zz" } } }))).toBe("bad_request:invalid_sign_request");
    expect(codeOf(() => prepareSignature("EVM", { message: "", context: { evmTypedData: { domain: {}, types: {}, primaryType: "Nope", message: {} } } }))).toBe("bad_request:invalid_sign_request");
    expect(codeOf(() => prepareSignature("EVM", { message: "", context: { evmTransaction: { to: "0x000000000000000000000000000000000000dEaD", chainId: -1 } } }))).toBe("unprocessable:unsupported_chain_id");
    expect(codeOf(() => prepareSignature("EVM", { message: "", context: { evmTransaction: { to: "nope", chainId: 1 } } }))).toBe("bad_request:invalid_sign_request");
    const onChain = (chainId: number) => () => prepareSignature("EVM", { message: "", context: { evmTransaction: { to: "0x000000000000000000000000000000000000dEaD", chainId } } }, [1, 8453]);
    expect(codeOf(onChain(10))).toBe("unprocessable:unsupported_chain_id");
    expect(codeOf(onChain(8453))).toBe("no error");
    // Fields of the wrong type or out of range: 400, never a library's TypeError (a 500).
    const tx = (extra: Record<string, unknown>) => () => prepareSignature("EVM", { message: "", context: { evmTransaction: { to: "0x000000000000000000000000000000000000dEaD", chainId: 1, ...extra } } } as never);
    for (const bad of [{ nonce: -1 }, { nonce: 1.5 }, { nonce: "7" }, { data: "0x123" }, { value: "0x" + "f".repeat(65) }, { gas: 21000 }, { maxFeePerGas: "1e9" }]) {
      expect(codeOf(tx(bad))).toBe("bad_request:invalid_sign_request");
    }
    expect(codeOf(() => prepareSignature("EVM", { message: 5 } as never))).toBe("bad_request:invalid_sign_request");
    expect(codeOf(() => prepareSignature("SOL", { message: 5 } as never))).toBe("bad_request:invalid_sign_request");
    expect(codeOf(() => prepareSignature("SOL", { message: "", context: { svmMessage: 5 } } as never))).toBe("bad_request:invalid_sign_request");
    expect(codeOf(() => prepareSignature("SOL", { message: "", context: { svmTransaction: { serializedTransactions: [5] } } } as never))).toBe("bad_request:invalid_solana_transaction");
    expect(codeOf(() => prepareSignature("EVM", { message: "", context: { evmTransaction: { to: "0x000000000000000000000000000000000000dEaD", chainId: 1, value: "1e18" } } }))).toBe("bad_request:invalid_sign_request");
    expect(codeOf(() => prepareSignature("SOL", { message: "", context: { svmTransaction: { serializedTransactions: ["AQID"] } } }))).toBe("bad_request:invalid_solana_transaction");
    expect(codeOf(() => prepareSignature("SOL", { message: "", context: { svmTransaction: { serializedTransactions: ["a", "b"] } } }))).toBe("unprocessable:one_transaction_per_request");
    expect(codeOf(() => prepareSignature("SOL", { message: "!!", isFormatted: true }))).toBe("bad_request:invalid_sign_request");
  });
});

describe("what a request moves or authorises, for the policy", () => {
  const payer = randomSolanaAddress();
  const to = randomSolanaAddress();
  const svm = (...ixs: Parameters<typeof solanaTransaction>[1]) =>
    prepareSignature("SOL", { message: "", context: { svmTransaction: { serializedTransactions: [solanaTransaction(payer, ixs).wire] } } }).requests;

  it("Solana: System Transfer, CreateAccount, CreateAccountWithSeed and TransferWithSeed name their recipients; the call's lamports add up", () => {
    expect(svm(systemTransfer(payer, to, 1_500_000_000n))).toEqual([{ chain: "SOL", method: "signTransaction", recipients: [to], value: "1.5" }]);
    expect(svm(createAccount(payer, to, 2_000_000n))).toEqual([{ chain: "SOL", method: "signTransaction", recipients: [to], value: "0.002" }]);
    expect(svm(createAccountWithSeed(payer, to, "a seed", 3n))).toEqual([{ chain: "SOL", method: "signTransaction", recipients: [to], value: "0.000000003" }]);
    expect(svm(transferWithSeed(randomSolanaAddress(), payer, to, "s", 4n))).toEqual([{ chain: "SOL", method: "signTransaction", recipients: [to], value: "0.000000004" }]);
    const other = randomSolanaAddress();
    expect(svm(systemTransfer(payer, to, 1n), createAccount(payer, other, 2n))).toEqual([{ chain: "SOL", method: "signTransaction", recipients: [to, other], value: "0.000000003" }]);
  });

  it("Solana: an SPL transfer or any other program cannot be judged: unknown recipients and value", () => {
    expect(svm(splTransfer(randomSolanaAddress(), to, payer, 5n))).toEqual([
      { chain: "SOL", method: "signTransaction", recipients: [], value: "0", unknownRecipients: true, unknownValue: true },
    ]);
    expect(svm(systemTransfer(payer, to, 1n), { programAddress: randomSolanaAddress(), accounts: [], data: new Uint8Array([1]) })).toEqual([
      { chain: "SOL", method: "signTransaction", recipients: [to], value: "0.000000001", unknownRecipients: true, unknownValue: true },
    ]);
  });

  it("Solana: the priority fee a transaction sets is lamports it spends; nonce advances and memos move nothing; Assign cannot be judged", () => {
    const budget = (kind: number, value: Buffer) => ({ programAddress: "ComputeBudget111111111111111111111111111111", accounts: [], data: Uint8Array.from([kind, ...value]) });
    const limit = Buffer.alloc(4);
    limit.writeUInt32LE(200_000);
    const price = Buffer.alloc(8);
    price.writeBigUInt64LE(5_000_000n); // micro-lamports per unit: 1,000,000 lamports over 200,000 units
    expect(svm(budget(2, limit), budget(3, price), systemTransfer(payer, to, 1n))).toEqual([{ chain: "SOL", method: "signTransaction", recipients: [to], value: "0.001000001" }]);
    // Without a limit the fee is bounded by the most units a transaction may use.
    expect(svm(budget(3, price))[0]!.value).toBe("0.007");
    const memo = { programAddress: "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr", accounts: [], data: new TextEncoder().encode("hi") };
    const advance = { programAddress: "11111111111111111111111111111111", accounts: [{ address: randomSolanaAddress(), role: 1 as const }, { address: "SysvarRecentB1ockHashes11111111111111111111", role: 0 as const }, { address: payer, role: 3 as const }], data: Uint8Array.from([4, 0, 0, 0]) };
    expect(svm(advance, memo)).toEqual([{ chain: "SOL", method: "signTransaction", recipients: [], value: "0" }]);
    const assign = { programAddress: "11111111111111111111111111111111", accounts: [{ address: payer, role: 3 as const }], data: Uint8Array.from([1, 0, 0, 0, ...new Uint8Array(32).fill(9)]) };
    expect(svm(assign)[0]).toMatchObject({ unknownRecipients: true, unknownValue: true });
    // A System Transfer whose data is cut short is not read as a smaller one.
    expect(svm({ ...systemTransfer(payer, to, 1n), data: Uint8Array.from([2, 0, 0, 0, 1]) })[0]).toMatchObject({ unknownValue: true });
  });

  it("Solana: message bytes that decode as a transaction message (legacy or v0, trailing bytes or not) are refused, 422 message_is_transaction", () => {
    for (const version of ["legacy", 0] as const) {
      const { message } = solanaTransaction(payer, [systemTransfer(payer, to, 1n)], version);
      expect(codeOf(() => prepareSignature("SOL", { message: base64.encode(message), isFormatted: true }))).toBe("unprocessable:message_is_transaction");
      expect(codeOf(() => prepareSignature("SOL", { message: base58.encode(message), isFormatted: true }))).toBe("unprocessable:message_is_transaction");
      expect(codeOf(() => prepareSignature("SOL", { message: "", isFormatted: true, context: { svmMessage: `0x${Buffer.from(message).toString("hex")}` } }))).toBe("unprocessable:message_is_transaction");
      expect(codeOf(() => prepareSignature("SOL", { message: base64.encode(Uint8Array.from([...message, 9, 9])), isFormatted: true }))).toBe("unprocessable:message_is_transaction");
    }
    // Messages, binary or text, and the off-chain message format still sign.
    expect(codeOf(() => prepareSignature("SOL", { message: "Sign in to example.com" }))).toBe("no error");
    expect(codeOf(() => prepareSignature("SOL", { message: "0x010203", isFormatted: true }))).toBe("no error");
    expect(codeOf(() => prepareSignature("SOL", { message: base64.encode(Uint8Array.from([0xff, ...Buffer.from("solana offchain"), 0])), isFormatted: true }))).toBe("no error");
  });

  const TOKEN = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";
  const R = "0x000000000000000000000000000000000000bEEF";
  const evmCall = (data: `0x${string}`, value = "0") => prepareSignature("EVM", { message: "", context: { evmTransaction: { to: TOKEN, chainId: 1, value, data } } }).requests;

  it("EVM: ERC-20 transfer / approve / transferFrom name the token and the party; the token amount is not native value", () => {
    const transfer = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [R, 10n] });
    expect(evmCall(transfer)).toEqual([{ chain: "EVM", chainId: 1, method: "signTransaction", recipients: [TOKEN, R], value: "0", unknownValue: true }]);
    const approve = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [R, 10n] });
    expect(evmCall(approve)).toEqual([{ chain: "EVM", chainId: 1, method: "signTransaction", recipients: [TOKEN, R], value: "0", unknownValue: true }]);
    const transferFrom = encodeFunctionData({ abi: erc20Abi, functionName: "transferFrom", args: [TOKEN, R, 10n] });
    expect(evmCall(transferFrom)).toEqual([{ chain: "EVM", chainId: 1, method: "signTransaction", recipients: [TOKEN, R], value: "0", unknownValue: true }]);
    expect(evmCall("0xdeadbeef", "1000000000000000000")).toEqual([{ chain: "EVM", chainId: 1, method: "signTransaction", recipients: [TOKEN], value: "1", unknownRecipients: true, unknownValue: true }]);
  });

  it("EVM: a Permit names its token and spender; other typed data cannot be judged", () => {
    const permitTypes = { Permit: [{ name: "owner", type: "address" }, { name: "spender", type: "address" }, { name: "value", type: "uint256" }, { name: "nonce", type: "uint256" }, { name: "deadline", type: "uint256" }] };
    const permit = { domain: { name: "USD Coin", version: "2", chainId: 1, verifyingContract: TOKEN }, types: permitTypes, primaryType: "Permit", message: { owner: TOKEN, spender: R, value: "5", nonce: "0", deadline: "1" } };
    expect(prepareSignature("EVM", { message: "", context: { evmTypedData: permit } }).requests).toEqual([
      { chain: "EVM", chainId: 1, method: "signTypedData", recipients: [TOKEN, R], value: "0", unknownValue: true },
    ]);
    const mail = { domain: { name: "Mail", chainId: 1 }, types: { Mail: [{ name: "contents", type: "string" }] }, primaryType: "Mail", message: { contents: "hi" } };
    expect(prepareSignature("EVM", { message: "", context: { evmTypedData: mail } }).requests).toEqual([
      { chain: "EVM", chainId: 1, method: "signTypedData", recipients: [], value: "0", unknownRecipients: true, unknownValue: true },
    ]);
  });

  it("EVM: an all-caps address is the checksummed one, signed and judged as such; a wrong checksum is 400, never 500", () => {
    const caps = "0x000000000000000000000000000000000000DEAD";
    const { prepared, requests } = prepareSignature("EVM", { message: "", context: { evmTransaction: { to: caps, chainId: 1, value: "1" } } });
    if (prepared.scheme !== "ecdsa-secp256k1") throw new Error("not ecdsa");
    expect(parseTransaction(prepared.serialized!).to).toBe("0x000000000000000000000000000000000000dead");
    expect(requests[0]!.recipients).toEqual(["0x000000000000000000000000000000000000dEaD"]);
    expect(codeOf(() => prepareSignature("EVM", { message: "", context: { eip7702Auth: { address: caps, chainId: 1, nonce: 0 } } }))).toBe("no error");
    const typo = "0x000000000000000000000000000000000000DeAd";
    expect(codeOf(() => prepareSignature("EVM", { message: "", context: { evmTransaction: { to: typo, chainId: 1 } } }))).toBe("bad_request:invalid_sign_request");
    expect(codeOf(() => prepareSignature("EVM", { message: "", context: { eip7702Auth: { address: typo, chainId: 1, nonce: 0 } } }))).toBe("bad_request:invalid_sign_request");
  });
});
