/**
 * The chain nodes the domain reads, as ports (implemented in src/adapters/evm-node.ts and solana-node.ts).
 * Every method answers what the node said, or throws: chain_unavailable (503, the node failed, timed out or
 * answered too much) or not_configured (422, the URL is refused by the destination policy). Never a guess.
 */
import type { SolanaTransactionNode } from "../solana-transactions/node.js";
import type { EvmHistoryNode, SolanaHistoryNode } from "../wallet-transactions/node.js";

/** Where a chain's node is and who vouches for the URL. */
export interface ChainEndpoint {
  url: string;
  /**
   * The operator's own default (SIGIL_EVM_RPC_URLS / SIGIL_SOLANA_RPC_URLS): trusted as written. Otherwise a
   * tenant wrote it (environment settings, custom networks) and every connection passes the service's
   * destination policy, as webhook and backup URLs do.
   */
  trusted: boolean;
  environmentName: "live" | "sandbox";
}

export interface Erc20Metadata {
  name: string;
  symbol: string;
  decimals: number;
}

export interface EvmNode {
  /** The chain id the node answers for (eth_chainId), checked against the network it is configured for. */
  chainId(): Promise<number>;
  /** The address's balance of the chain's native currency, in wei. */
  nativeBalance(address: string): Promise<bigint>;
  /** The owner's balance of each token, in base units (multicall); null where the contract did not answer as an ERC-20. */
  erc20Balances(owner: string, tokens: readonly string[]): Promise<(bigint | null)[]>;
  /** Each token's name, symbol and decimals (multicall); null where the contract did not answer them. */
  erc20Metadata(tokens: readonly string[]): Promise<(Erc20Metadata | null)[]>;
}

/** One SPL token account's balance, as the node parsed it. */
export interface SplHolding {
  mint: string;
  amount: bigint;
  decimals: number;
}

export interface SolanaNode {
  lamports(address: string): Promise<bigint>;
  /** The owner's token accounts of the Token and Token-2022 programs, summed per mint. */
  splHoldings(owner: string): Promise<SplHolding[]>;
}

export interface ChainNodes {
  evm(endpoint: ChainEndpoint): EvmNode;
  solana(endpoint: ChainEndpoint): SolanaNode;
  /** Simulation and fee advice (src/domain/solana-transactions). */
  solanaTransactions(endpoint: ChainEndpoint): SolanaTransactionNode;
  /** An address's recent transactions (src/domain/wallet-transactions). */
  evmHistory(endpoint: ChainEndpoint): EvmHistoryNode;
  solanaHistory(endpoint: ChainEndpoint): SolanaHistoryNode;
  /** Signatures EVM accounts accept and tokens they hold (sign-in: smart-contract wallets, token gates). */
  evmAccounts(endpoint: ChainEndpoint): import("./evm-accounts.js").EvmAccounts;
  /** Runs a call on the latest block without sending it (transaction and user operation simulations). */
  evmSimulator(endpoint: ChainEndpoint): import("../simulations/evm-simulator.js").EvmSimulator;
}
