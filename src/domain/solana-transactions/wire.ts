import { base64 } from "@scure/base";
import {
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  type CompiledTransactionMessage,
  type CompiledTransactionMessageWithLifetime,
  type LegacyCompiledTransactionMessage,
  type V0CompiledTransactionMessage,
} from "@solana/transaction-messages";
import { getTransactionDecoder, getTransactionEncoder, type Transaction } from "@solana/transactions";
import { badRequest } from "../../errors.js";

/** The largest transaction a Solana node accepts (its packet size less headers): a larger one never lands. */
export const MAX_TRANSACTION_BYTES = 1232;

/** The messages nodes accept today (legacy and v0); kit's v1 is not one of them yet. */
export type NodeMessage = (LegacyCompiledTransactionMessage | V0CompiledTransactionMessage) & CompiledTransactionMessageWithLifetime;

/** A client's serialized transaction, decoded. */
export interface WireTransaction {
  transaction: Transaction;
  message: NodeMessage;
}

/** 400 invalid_solana_transaction (the code the WaaS signing requests use for the same fault), naming the field. */
export const invalidTransaction = (why: string, field: string) => badRequest("invalid_solana_transaction", `the transaction ${why}`, { field });

/**
 * A transaction as a client sends it (base64 of the wire bytes), decoded with Solana's own codecs: 400
 * invalid_solana_transaction when it is not base64, larger than a node accepts, not a transaction, has bytes
 * past its end, or is a message version nodes do not run.
 */
export function decodeWireTransaction(encoded: string, field: string): WireTransaction {
  let bytes: Uint8Array;
  try {
    bytes = base64.decode(encoded.trim());
  } catch {
    throw invalidTransaction("is not base64", field);
  }
  if (bytes.length > MAX_TRANSACTION_BYTES) throw invalidTransaction(`is ${bytes.length} bytes, more than the ${MAX_TRANSACTION_BYTES} a node accepts`, field);
  let transaction: Transaction;
  let message: CompiledTransactionMessage & CompiledTransactionMessageWithLifetime;
  try {
    const [decoded, end] = getTransactionDecoder().read(bytes, 0);
    if (end !== bytes.length) throw new Error("trailing bytes");
    transaction = decoded;
    message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  } catch {
    throw invalidTransaction("is not a serialized Solana transaction", field);
  }
  if (message.version !== "legacy" && message.version !== 0) throw invalidTransaction(`is a version ${message.version} message, which nodes do not run`, field);
  if (message.staticAccounts.length === 0 || message.header.numSignerAccounts === 0) throw invalidTransaction("has no fee payer", field);
  return { transaction, message: message as NodeMessage };
}

/** The static accounts the message may write (signers first, then non-signers, each group writable first). */
export function writableStaticAccounts(message: NodeMessage): string[] {
  const { numSignerAccounts, numReadonlySignerAccounts, numReadonlyNonSignerAccounts } = message.header;
  const count = message.staticAccounts.length;
  return message.staticAccounts.filter((_, i) => (i < numSignerAccounts ? i < numSignerAccounts - numReadonlySignerAccounts : i < count - numReadonlyNonSignerAccounts));
}

/** The signers of the message: the fee payer first. */
export const signersOf = (message: NodeMessage): string[] => message.staticAccounts.slice(0, message.header.numSignerAccounts);

/** The transaction of `message` with every signature slot empty (to be signed anew), as base64 wire bytes. */
export function unsignedWireTransaction(message: NodeMessage): string {
  const messageBytes = getCompiledTransactionMessageEncoder().encode(message);
  const signatures = Object.fromEntries(signersOf(message).map((s) => [s, null]));
  return base64.encode(new Uint8Array(getTransactionEncoder().encode({ messageBytes, signatures } as unknown as Transaction)));
}
