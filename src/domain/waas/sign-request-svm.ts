import { getCompiledTransactionMessageDecoder } from "@solana/transaction-messages";
import { getTransactionDecoder, getTransactionEncoder } from "@solana/transactions";
import { base58, base64 } from "@scure/base";
import { badRequest, unprocessable } from "../../errors.js";

/**
 * A Solana transaction as the client sends it (serialized wire format, base64 or base58), decoded with
 * Solana's own codecs: the bytes a signer signs (the transaction's message) and the System Program transfers
 * it makes, for the WaaS policy (recipient, lamports). Transfers through lookup tables name no static
 * recipient and are reported with an empty one, which an address-restricted rule does not match.
 */

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
/** SystemInstruction::Transfer: u32 LE 2, then u64 LE lamports. */
const TRANSFER = 2;

const invalidTx = (why: string) => badRequest("invalid_solana_transaction", `the serialized transaction ${why}`, { field: "context.svmTransaction.serializedTransactions" });

function wireBytes(encoded: string): Uint8Array {
  for (const decode of [base64.decode, base58.decode]) {
    try {
      return decode(encoded);
    } catch {
      // the next encoding
    }
  }
  throw invalidTx("is neither base64 nor base58");
}

/** The client's transaction with `signature` in the signer slot of `address`, as base64 wire bytes. */
export function signedSolanaTransaction(encoded: string, address: string, signature: Uint8Array): string {
  const tx = getTransactionDecoder().decode(wireBytes(encoded));
  if (!(address in tx.signatures)) throw invalidTx("does not name this wallet as a signer");
  const signed = { ...tx, signatures: { ...tx.signatures, [address]: signature } } as unknown as typeof tx;
  return base64.encode(Uint8Array.from(getTransactionEncoder().encode(signed)));
}

export function solanaMessageOf(encoded: string): { messageBytes: Uint8Array; transfers: { to: string; lamports: bigint }[] } {
  if (typeof encoded !== "string" || encoded.length > 8_000) throw invalidTx("must be a string of at most 8000 characters");
  let messageBytes: Uint8Array;
  let message: ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>["decode"]>;
  try {
    messageBytes = Uint8Array.from(getTransactionDecoder().decode(wireBytes(encoded)).messageBytes);
    message = getCompiledTransactionMessageDecoder().decode(messageBytes);
  } catch (e) {
    if ((e as { code?: string }).code === "invalid_solana_transaction") throw e;
    throw invalidTx("does not decode as a Solana transaction");
  }
  // Version 1 messages lay instructions out anew; their transfers are not read here, so they are not signed
  // (a policy limit could not be applied to them).
  if (!("instructions" in message)) throw unprocessable("unsupported_transaction_version", "Solana transactions of message version 1 are not supported: send a legacy or v0 transaction");
  const accounts = message.staticAccounts.map(String);
  const transfers: { to: string; lamports: bigint }[] = [];
  for (const ix of message.instructions) {
    if (accounts[ix.programAddressIndex] !== SYSTEM_PROGRAM || !ix.data || ix.data.length < 12) continue;
    const data = Buffer.from(ix.data);
    if (data.readUInt32LE(0) !== TRANSFER) continue;
    transfers.push({ to: accounts[ix.accountIndices?.[1] ?? -1] ?? "", lamports: data.readBigUInt64LE(4) });
  }
  return { messageBytes, transfers };
}
