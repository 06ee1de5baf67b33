import { getCompiledTransactionMessageDecoder } from "@solana/transaction-messages";
import { getTransactionDecoder, getTransactionEncoder } from "@solana/transactions";
import { base58, base64 } from "@scure/base";
import { badRequest, unprocessable } from "../../errors.js";
import { solanaMovesOf, type SolanaMoves } from "./solana-moves.js";

/**
 * A Solana transaction as the client sends it (serialized wire format, base64 or base58), decoded with
 * Solana's own codecs: the bytes a signer signs (the transaction's message) and what it moves, for the WaaS
 * policy (src/domain/waas/solana-moves.ts). And the other way round: message bytes that are a transaction's
 * message are never signed as a "message" (isSolanaTransactionMessage).
 */

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

export function solanaMessageOf(encoded: string): { messageBytes: Uint8Array; moves: SolanaMoves } {
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
  // Version 1 messages lay instructions out anew; their moves are not read here, so they are not signed
  // (a policy limit could not be applied to them).
  if (!("instructions" in message)) throw unprocessable("unsupported_transaction_version", "Solana transactions of message version 1 are not supported: send a legacy or v0 transaction");
  return { messageBytes, moves: solanaMovesOf({ staticAccounts: message.staticAccounts.map(String), instructions: message.instructions }) };
}

/**
 * Whether `bytes` begin with a transaction message (legacy, v0 or any version Solana's decoder reads) that
 * names at least one signer among its accounts, as every transaction the chain accepts does. A signature over
 * such bytes is that transaction's signature: the chain reads the message from its start, so trailing bytes
 * do not make it a message. Text and the off-chain message format (0xff "solana offchain" ...) never are.
 */
export function isSolanaTransactionMessage(bytes: Uint8Array): boolean {
  let header: { numSignerAccounts: number };
  let accounts: number;
  try {
    const m = getCompiledTransactionMessageDecoder().decode(bytes);
    header = m.header;
    accounts = m.staticAccounts.length;
  } catch {
    return false;
  }
  return header.numSignerAccounts >= 1 && accounts >= header.numSignerAccounts;
}

/** 422 message_is_transaction for message bytes that are a transaction's message (every Solana message path). */
export function refuseTransactionMessage(bytes: Uint8Array, field: string): void {
  if (isSolanaTransactionMessage(bytes))
    throw unprocessable(
      "message_is_transaction",
      "these message bytes are a Solana transaction's message: a signature over them would sign the transaction. Send transactions as context.svmTransaction",
      { field },
    );
}
