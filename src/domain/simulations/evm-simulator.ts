/**
 * The port a simulation reads an EVM node through (implemented in src/adapters/evm-simulator.ts). Every
 * method answers what the node said, or throws chain_unavailable (503) / not_configured (422) as the
 * balances ports do (src/domain/chains/nodes.ts). A call that reverts is an answer, not an error.
 */

/** A call to run on the latest block; nothing is sent to the chain. */
export interface EvmCall {
  from: string;
  to: string;
  data: `0x${string}`;
  value: bigint;
}

/** One event log of a call frame that succeeded (a reverted frame's logs never happened). */
export interface EvmLog {
  address: string;
  topics: `0x${string}`[];
  data: `0x${string}`;
}

/** A movement of the native currency between two accounts (a call's value, in wei). */
export interface NativeTransfer {
  from: string;
  to: string;
  value: bigint;
}

/** What running the call did. */
export interface EvmCallOutcome {
  gasUsed: bigint;
  /** Present when the top-level call reverted: the revert data and the node's own reading of it. */
  failure?: { data: `0x${string}`; nodeMessage: string };
  /** In execution order, only of frames that succeeded (and whose callers did). */
  logs: EvmLog[];
  nativeTransfers: NativeTransfer[];
}

export interface EvmSimulator {
  /** Runs the call: eth_simulateV1 where the node offers it, else debug_traceCall with the call tracer. */
  simulate(call: EvmCall): Promise<EvmCallOutcome>;
  /** Whether a contract is deployed at the address (eth_getCode is not empty). */
  hasCode(address: string): Promise<boolean>;
  /** Each NFT contract's name and symbol (multicall; ERC-721 and ERC-1155 have no decimals); null where not answered. */
  collectionNames(contracts: readonly string[]): Promise<({ name: string; symbol: string } | null)[]>;
}
