import { hashMessage, hashTypedData, keccak256, serializeTransaction } from "viem";
import { describe, expect, it } from "vitest";
import { DomainError } from "../../../src/errors.js";
import { prepareSignature } from "../../../src/domain/waas/sign-request.js";

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
    expect(requests).toEqual([{ chain: "EVM", method: "signTransaction", to: "0x000000000000000000000000000000000000dEaD", value: "1.5" }]);
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
