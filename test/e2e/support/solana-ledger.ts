import { ed25519 } from "@noble/curves/ed25519.js";
import {
  type Address,
  type Blockhash,
  type CompiledTransactionMessage,
  type CompiledTransactionMessageWithLifetime,
  type EncodedAccount,
  type LegacyCompiledTransactionMessage,
  type Signature,
  type Transaction,
  type V0CompiledTransactionMessage,
  getAddressEncoder,
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  getTransactionDecoder,
} from "@solana/kit";
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from "litesvm";
import { RpcError, type TransactionError, addressAt, toBase58, toBase64, tokenBalance, transactionError } from "./solana-json.js";

/**
 * LiteSVM with the book-keeping a node does around it: slots and block heights, the recent blockhashes a
 * transaction may name, the transactions that landed (for getSignatureStatuses / getTransaction), fees,
 * balances before and after. One landed transaction is one new block: the slot moves on by one and a new
 * blockhash is issued, while the last 150 stay valid, as on a node.
 */

/** How many blocks a blockhash stays valid for (the node's MAX_PROCESSING_AGE). */
const BLOCKHASH_AGE = 150n;
const LAMPORTS_PER_SIGNATURE = 5000n;
const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";
/** Address lookup table accounts hold 56 bytes of metadata before their addresses. */
const LOOKUP_TABLE_META_SIZE = 56;

/** Legacy and v0 messages: the ones a node accepts today. */
export type Message = (LegacyCompiledTransactionMessage | V0CompiledTransactionMessage) & CompiledTransactionMessageWithLifetime;

export function acceptedMessage(message: CompiledTransactionMessage & CompiledTransactionMessageWithLifetime): Message {
  if (message.version === 1) throw new RpcError(-32602, "invalid transaction: unsupported transaction version 1");
  return message;
}

export interface Decoded {
  transaction: Transaction;
  message: Message;
  wire: Uint8Array;
}

/** What running (or simulating) a transaction gave, in the node's terms. */
export interface Outcome {
  err: TransactionError | null;
  logs: string[];
  unitsConsumed: bigint;
  fee: bigint;
  /** The transaction's account keys: static ones, then those loaded from lookup tables. */
  keys: Address[];
  loadedAddresses: { writable: Address[]; readonly: Address[] };
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: object[];
  postTokenBalances: object[];
  innerInstructions: { index: number; instructions: { programIdIndex: number; accounts: number[]; data: string; stackHeight: number }[] }[];
  returnData: { programId: Address; data: [string, "base64"] } | null;
  /** An account as the transaction left it. */
  after(address: Address): EncodedAccount | null;
}

export interface Landed extends Outcome {
  signature: string;
  slot: bigint;
  blockTime: number;
  decoded: Decoded;
}

export function decodeTransaction(wire: Uint8Array): Decoded {
  try {
    const transaction = getTransactionDecoder().decode(wire);
    return { transaction, message: acceptedMessage(getCompiledTransactionMessageDecoder().decode(transaction.messageBytes)), wire };
  } catch (e) {
    if (e instanceof RpcError) throw e;
    throw new RpcError(-32602, `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${(e as Error).message}`);
  }
}

export class Ledger {
  readonly svm: LiteSVM;
  slot: bigint;
  blockHeight = 0n;
  /** The blockhashes a transaction may name, with the last block height each is valid for. */
  private readonly recent = new Map<string, bigint>();
  readonly landed = new Map<string, Landed>();
  /** What getRecentPrioritizationFees answers, oldest first; null answers zero for each recent block. */
  prioritizationFees: readonly bigint[] | null = null;

  constructor() {
    // Signatures and blockhashes are checked here, as a node does, so that simulation can skip either.
    this.svm = new LiteSVM().withSigverify(false).withBlockhashCheck(false);
    this.slot = this.svm.getClock().slot;
    this.recent.set(this.svm.latestBlockhash(), BLOCKHASH_AGE);
  }

  latestBlockhash(): { blockhash: Blockhash; lastValidBlockHeight: bigint } {
    return { blockhash: this.svm.latestBlockhash(), lastValidBlockHeight: this.blockHeight + BLOCKHASH_AGE };
  }

  isBlockhashValid(blockhash: string): boolean {
    return this.recent.has(blockhash);
  }

  account(address: Address): EncodedAccount | null {
    const found = this.svm.getAccount(address);
    return found.exists ? found : null;
  }

  /** Whether every signer signed the message (the node answers -32003 otherwise). */
  signaturesVerify({ transaction, message }: Decoded): boolean {
    const signers = message.staticAccounts.slice(0, message.header.numSignerAccounts);
    const encoder = getAddressEncoder();
    return signers.every((signer) => {
      const signature = transaction.signatures[signer];
      return !!signature && ed25519.verify(signature, transaction.messageBytes as unknown as Uint8Array, encoder.encode(signer) as Uint8Array);
    });
  }

  /** The same transaction naming the latest blockhash (simulateTransaction's replaceRecentBlockhash). */
  withLatestBlockhash(decoded: Decoded): Decoded {
    const message = { ...decoded.message, lifetimeToken: this.svm.latestBlockhash() };
    const messageBytes = getCompiledTransactionMessageEncoder().encode(message);
    return { ...decoded, message, transaction: { ...decoded.transaction, messageBytes } as Transaction };
  }

  /** The base fee (per signature) plus the priority fee that the compute-budget instructions ask for. */
  fee(message: Message): bigint {
    let limit: bigint | null = null;
    let price = 0n;
    let others = 0n;
    for (const ix of message.instructions) {
      const data = ix.data ?? new Uint8Array();
      if (message.staticAccounts[ix.programAddressIndex] !== COMPUTE_BUDGET_PROGRAM) others++;
      else if (data[0] === 2) limit = BigInt(new DataView(data.buffer, data.byteOffset).getUint32(1, true));
      else if (data[0] === 3) price = new DataView(data.buffer, data.byteOffset).getBigUint64(1, true);
    }
    const units = limit ?? (others * 200_000n > 1_400_000n ? 1_400_000n : others * 200_000n);
    return LAMPORTS_PER_SIGNATURE * BigInt(message.header.numSignerAccounts) + (price * units + 999_999n) / 1_000_000n;
  }

  /**
   * Runs the transaction. It lands (a new block) when LiteSVM committed it, fee charged, even if an instruction
   * failed; one refused before execution (unknown fee payer, fee not covered) does not, as on a node.
   */
  send(decoded: Decoded): { landed: Landed | null; outcome: Outcome } {
    const before = this.snapshot(decoded.message);
    const refused = this.refusal(decoded);
    if (refused) return { landed: null, outcome: this.notRun(before, refused) };
    const result = this.svm.sendTransaction(decoded.transaction);
    const failed = result instanceof FailedTransactionMetadata ? result : null;
    const meta = failed ? failed.meta() : (result as TransactionMetadata);
    const outcome = this.outcome(before, decoded.message, meta, failed, (a) => this.account(a));
    const signature = toBase58(meta.signature());
    if (!this.svm.getTransaction(signature as Signature)) return { landed: null, outcome };
    const landed: Landed = { ...outcome, signature, slot: this.slot, blockTime: Math.floor(Date.now() / 1000), decoded };
    this.landed.set(landed.signature, landed);
    this.nextBlock();
    return { landed, outcome };
  }

  simulate(decoded: Decoded): Outcome {
    const before = this.snapshot(decoded.message);
    const refused = this.refusal(decoded);
    if (refused) return this.notRun(before, refused);
    const result = this.svm.simulateTransaction(decoded.transaction);
    if (result instanceof FailedTransactionMetadata) return this.outcome(before, decoded.message, result.meta(), result, (a) => this.account(a));
    const post = new Map(result.postAccounts().map((a) => [a.address, a]));
    return this.outcome(before, decoded.message, result.meta(), null, (a) => (post.has(a) ? post.get(a)! : this.account(a)));
  }

  /** Why the node would not run the transaction at all: its blockhash, or its signature already landed. */
  private refusal({ message, transaction }: Decoded): TransactionError | null {
    if (!this.isBlockhashValid(message.lifetimeToken)) return "BlockhashNotFound";
    const first = Object.values(transaction.signatures)[0];
    return first && this.landed.has(toBase58(first)) ? "AlreadyProcessed" : null;
  }

  /** The recent blocks' prioritization fees, oldest first, ending at the current slot. */
  recentPrioritizationFees(): { slot: bigint; prioritizationFee: bigint }[] {
    const count = this.prioritizationFees?.length ?? Number(this.blockHeight + 1n > BLOCKHASH_AGE ? BLOCKHASH_AGE : this.blockHeight + 1n);
    return Array.from({ length: count }, (_, i) => ({ slot: this.slot - BigInt(count - 1 - i), prioritizationFee: this.prioritizationFees?.[i] ?? 0n }));
  }

  private nextBlock() {
    this.slot += 1n;
    this.blockHeight += 1n;
    this.svm.warpToSlot(this.slot);
    this.svm.expireBlockhash();
    this.recent.set(this.svm.latestBlockhash(), this.blockHeight + BLOCKHASH_AGE);
    for (const [hash, lastValid] of this.recent) if (lastValid < this.blockHeight) this.recent.delete(hash);
  }

  private loadedAddresses(message: Message) {
    const loaded = { writable: [] as Address[], readonly: [] as Address[] };
    for (const lookup of ("addressTableLookups" in message && message.addressTableLookups) || []) {
      const table = this.account(lookup.lookupTableAddress)?.data;
      if (!table) continue; // LiteSVM answers AddressLookupTableNotFound for it.
      const at = (i: number) => addressAt(table as Uint8Array, LOOKUP_TABLE_META_SIZE + 32 * i);
      loaded.writable.push(...lookup.writableIndexes.map(at));
      loaded.readonly.push(...lookup.readonlyIndexes.map(at));
    }
    return loaded;
  }

  private snapshot(message: Message) {
    const loadedAddresses = this.loadedAddresses(message);
    const keys = [...message.staticAccounts, ...loadedAddresses.writable, ...loadedAddresses.readonly];
    const lookup = (a: Address) => this.account(a);
    const preBalances = keys.map((k) => this.account(k)?.lamports ?? 0n);
    const preTokenBalances = keys.map((k, i) => tokenBalance(i, this.account(k), lookup)).filter((b) => b !== null);
    return { keys, loadedAddresses, preBalances, preTokenBalances, fee: this.fee(message) };
  }

  private notRun(before: ReturnType<Ledger["snapshot"]>, err: TransactionError): Outcome {
    const none = { logs: [], unitsConsumed: 0n, innerInstructions: [], returnData: null, after: (a: Address) => this.account(a) };
    return { ...before, ...none, err, postBalances: before.preBalances, postTokenBalances: before.preTokenBalances };
  }

  private outcome(
    before: ReturnType<Ledger["snapshot"]>,
    message: Message,
    meta: TransactionMetadata,
    failed: FailedTransactionMetadata | null,
    after: (a: Address) => EncodedAccount | null,
  ): Outcome {
    const returned = meta.returnData();
    const innerInstructions = meta
      .innerInstructions()
      .map((list, index) => ({
        index,
        instructions: list.map((inner) => {
          const ix = inner.instruction();
          return { programIdIndex: ix.programIdIndex(), accounts: [...ix.accounts()], data: toBase58(ix.data()), stackHeight: inner.stackHeight() };
        }),
      }))
      .filter((entry) => entry.instructions.length > 0);
    return {
      ...before,
      fee: this.fee(message),
      err: failed ? transactionError(failed) : null,
      logs: meta.logs(),
      unitsConsumed: meta.computeUnitsConsumed(),
      postBalances: before.keys.map((k) => after(k)?.lamports ?? 0n),
      postTokenBalances: before.keys.map((k, i) => tokenBalance(i, after(k), after)).filter((b) => b !== null),
      innerInstructions,
      returnData: returned.data().length > 0 ? { programId: addressAt(returned.programId(), 0), data: [toBase64(returned.data()), "base64"] } : null,
      after,
    };
  }
}
