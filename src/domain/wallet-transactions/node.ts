import type { SolanaTokenBalance } from "../chains/solana-deltas.js";
/**
 * What listing an address's transactions needs from the nodes, as ports (src/adapters/evm-history-node.ts,
 * solana-history-node.ts). Each method answers what the node said, or throws chain_unavailable (503) /
 * not_configured (422).
 */

/** A token Transfer / TransferSingle / TransferBatch log, decoded: one entry per token id moved. */
export interface TokenTransferLog {
  standard: "ERC20" | "ERC721" | "ERC1155";
  token: string;
  from: string;
  to: string;
  /** Base units (ERC-20), 1 (ERC-721), the amount of the id (ERC-1155). */
  value: bigint;
  tokenId: bigint | null;
  blockNumber: bigint;
  transactionHash: string;
  logIndex: number;
}

export interface EvmTransactionSummary {
  hash: string;
  from: string;
  /** Null for a contract creation. */
  to: string | null;
  value: bigint;
  blockNumber: bigint;
  transactionIndex: number;
}

export interface EvmBlockSummary {
  number: bigint;
  hash: string;
  /** Seconds since the epoch. */
  timestamp: bigint;
  /** Only when asked for (withTransactions). */
  transactions: EvmTransactionSummary[];
}

export interface EvmHistoryNode {
  blockNumber(): Promise<bigint>;
  /** ERC-20/721/1155 transfer logs from or to the address in the block range (eth_getLogs, both directions). */
  tokenTransfers(address: string, fromBlock: bigint, toBlock: bigint): Promise<TokenTransferLog[]>;
  blocks(numbers: readonly bigint[], withTransactions: boolean): Promise<EvmBlockSummary[]>;
  transactions(hashes: readonly string[]): Promise<EvmTransactionSummary[]>;
}

/** One SPL token account's balance, by the transaction's account index. */
export type TokenBalanceRecord = SolanaTokenBalance;

export interface SolanaSignatureRecord {
  signature: string;
  slot: bigint;
  blockTime: number | null;
}

/** A landed transaction as getTransaction reports it. */
export interface SolanaTransactionRecord {
  signature: string;
  slot: bigint;
  blockTime: number | null;
  /** Static account keys, then those loaded from lookup tables (writable, then read-only). */
  accountKeys: string[];
  err: unknown;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalanceRecord[];
  postTokenBalances: TokenBalanceRecord[];
}

export interface SolanaHistoryNode {
  /** getSignaturesForAddress: newest first, at most `limit`, older than `before` when given. */
  signaturesFor(address: string, limit: number, before?: string): Promise<SolanaSignatureRecord[]>;
  /** getTransaction of each signature (null where the node no longer has it). */
  transactions(signatures: readonly string[]): Promise<(SolanaTransactionRecord | null)[]>;
}
