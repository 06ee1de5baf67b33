import { ed25519 } from "@noble/curves/ed25519.js";
import { hexToBytes } from "@noble/curves/utils.js";
import { base58, base64 } from "@scure/base";
import { appendTransactionMessageInstruction, createTransactionMessage, setTransactionMessageFeePayer, setTransactionMessageLifetimeUsingBlockhash } from "@solana/transaction-messages";
import { compileTransaction, getBase64EncodedWireTransaction, getTransactionDecoder } from "@solana/transactions";
import { parseTransaction, recoverTransactionAddress, verifyMessage, verifyTypedData } from "viem";
import { generatePrivateKey, privateKeyToAccount, sign } from "viem/accounts";
import { recoverAuthorizationAddress } from "viem/utils";
import { describe, expect, it } from "vitest";
import { signedSolanaTransaction } from "../../../src/domain/waas/sign-request-svm.js";
import { prepareSignature, signedEvmTransaction, type PreparedSignature } from "../../../src/domain/waas/sign-request.js";

// A signature made over what prepareSignature says to sign (by a plain private key, standing in for the
// threshold signers) verifies with the chains' own libraries: the digests and bytes are the right ones.
const key = generatePrivateKey();
const account = privateKeyToAccount(key);
const digestOf = (p: PreparedSignature) => (p.scheme === "ecdsa-secp256k1" ? p.digest : expect.unreachable());
const signDigest = (p: PreparedSignature) => sign({ hash: digestOf(p), privateKey: key, to: "object" });
const serializedSig = (p: PreparedSignature) => sign({ hash: digestOf(p), privateKey: key, to: "hex" });

describe("signatures over prepared EVM requests verify with viem", () => {
  it("EIP-191 text and raw messages", async () => {
    const text = prepareSignature("EVM", { message: "hello sigil" }).prepared;
    expect(await verifyMessage({ address: account.address, message: "hello sigil", signature: await serializedSig(text) })).toBe(true);
    const raw = prepareSignature("EVM", { message: "", context: { evmMessage: { raw: "0xdeadbeef" } } }).prepared;
    expect(await verifyMessage({ address: account.address, message: { raw: "0xdeadbeef" }, signature: await serializedSig(raw) })).toBe(true);
  });

  it("EIP-712 typed data", async () => {
    const typed = {
      domain: { name: "Mail", version: "1", chainId: 1, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" as const },
      types: { Person: [{ name: "name", type: "string" }, { name: "wallet", type: "address" }], Mail: [{ name: "from", type: "Person" }, { name: "contents", type: "string" }] },
      primaryType: "Mail" as const,
      message: { from: { name: "Cow", wallet: "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826" }, contents: "Hello" },
    };
    const { prepared } = prepareSignature("EVM", { message: "", context: { evmTypedData: typed } });
    expect(await verifyTypedData({ address: account.address, ...typed, signature: await serializedSig(prepared) } as never)).toBe(true);
  });

  it("legacy and EIP-1559 transactions: the signed transaction recovers the signer and keeps the fields", async () => {
    for (const fees of [{ gasPrice: "1000000000" }, { maxFeePerGas: "30000000000", maxPriorityFeePerGas: "1000000000" }]) {
      const { prepared } = prepareSignature("EVM", { message: "", context: { evmTransaction: { to: "0x000000000000000000000000000000000000dEaD", chainId: 8453, value: "12345", nonce: 7, gas: "21000", data: "0x01", ...fees } } });
      if (prepared.scheme !== "ecdsa-secp256k1" || !prepared.serialized) throw new Error("not a transaction");
      const sig = await signDigest(prepared);
      const signed = signedEvmTransaction(prepared.serialized, { r: sig.r, s: sig.s, recovery: sig.yParity! });
      expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(account.address);
      expect(parseTransaction(signed)).toMatchObject({ chainId: 8453, nonce: 7, value: 12345n, gas: 21000n, to: "0x000000000000000000000000000000000000dead", type: "maxFeePerGas" in fees ? "eip1559" : "legacy" });
    }
  });

  it("EIP-7702 authorizations", async () => {
    const auth = { address: "0x000000000000000000000000000000000000bEEF" as const, chainId: 1, nonce: 3 };
    const { prepared, requests } = prepareSignature("EVM", { message: "", context: { eip7702Auth: auth } });
    // The delegate is named; what it may move later is not (no maxPerCall can clear it).
    expect(requests).toEqual([{ chain: "EVM", chainId: 1, method: "signTransaction", recipients: [auth.address], value: "0", unknownValue: true }]);
    const signature = await serializedSig(prepared);
    expect(await recoverAuthorizationAddress({ authorization: { address: auth.address, chainId: 1, nonce: 3 }, signature })).toBe(account.address);
  });
});

describe("Solana transactions", () => {
  const secret = ed25519.utils.randomSecretKey();
  const payer = base58.encode(ed25519.getPublicKey(secret));
  const recipient = base58.encode(ed25519.getPublicKey(ed25519.utils.randomSecretKey()));

  function transfer(lamports: bigint): string {
    const data = new Uint8Array(12);
    new DataView(data.buffer).setUint32(0, 2, true);
    new DataView(data.buffer).setBigUint64(4, lamports, true);
    const message = appendTransactionMessageInstruction(
      {
        programAddress: "11111111111111111111111111111111" as never,
        accounts: [
          { address: payer as never, role: 3 },
          { address: recipient as never, role: 1 },
        ],
        data,
      },
      setTransactionMessageLifetimeUsingBlockhash({ blockhash: base58.encode(new Uint8Array(32).fill(7)) as never, lastValidBlockHeight: 100n }, setTransactionMessageFeePayer(payer as never, createTransactionMessage({ version: 0 }))),
    );
    return getBase64EncodedWireTransaction(compileTransaction(message));
  }

  it("signs the transaction's message bytes, reads the transfer for the policy, and the attached signature verifies", () => {
    const wire = transfer(1_500_000_000n);
    const { prepared, requests } = prepareSignature("SOL", { message: "", context: { svmTransaction: { serializedTransactions: [wire] } } });
    expect(requests).toEqual([{ chain: "SOL", method: "signTransaction", recipients: [recipient], value: "1.5" }]);
    const messageBytes = Uint8Array.from(getTransactionDecoder().decode(base64.decode(wire)).messageBytes);
    if (prepared.scheme !== "frost-ed25519") throw new Error("not ed25519");
    expect(prepared.message).toBe(Buffer.from(messageBytes).toString("hex"));
    const signed = signedSolanaTransaction(wire, payer, ed25519.sign(hexToBytes(prepared.message), secret));
    const tx = getTransactionDecoder().decode(base64.decode(signed));
    expect(ed25519.verify(tx.signatures[payer as never]!, Uint8Array.from(tx.messageBytes), ed25519.getPublicKey(secret))).toBe(true);
    // A wallet that is not a signer of the transaction cannot attach its signature.
    expect(() => signedSolanaTransaction(wire, recipient, new Uint8Array(64))).toThrow(/does not name this wallet/);
  });
});
