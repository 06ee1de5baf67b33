import type { SolanaTokenBalance } from "../chains/solana-deltas.js";
/**
 * What simulation and fee advice need from a Solana node, as a port (src/adapters/solana-transactions-node.ts).
 * Each method answers what the node said, or throws chain_unavailable (503) / not_configured (422).
 */

/** One SPL token account's balance, by the transaction's account index. */
export type SimulatedTokenBalance = SolanaTokenBalance;

/** A simulation's outcome in the node's terms. Balances are null where the node did not report them. */
export interface SolanaSimulation {
  /** The node's TransactionError (a string or an object such as {"InstructionError":[0,{"Custom":1}]}), null on success. */
  err: unknown;
  logs: string[];
  unitsConsumed: number | null;
  /** The fee the transaction pays, in lamports (Agave 2.3+ reports it). */
  fee: bigint | null;
  /** Accounts the transaction loaded from lookup tables: they follow the static ones in the balance lists. */
  loadedAddresses: { writable: string[]; readonly: string[] } | null;
  preBalances: bigint[] | null;
  postBalances: bigint[] | null;
  preTokenBalances: SimulatedTokenBalance[] | null;
  postTokenBalances: SimulatedTokenBalance[] | null;
}

export interface SolanaTransactionNode {
  /**
   * simulateTransaction of a base64 wire transaction, without signature checks and with the latest blockhash
   * in place of its own (a client simulates before signing, often with an old blockhash).
   */
  simulate(wireBase64: string): Promise<SolanaSimulation>;
  /** getRecentPrioritizationFees over these accounts: each recent block's fee, micro-lamports per compute unit. */
  recentPrioritizationFees(writableAccounts: readonly string[]): Promise<bigint[]>;
}
