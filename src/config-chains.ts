import { int, rpcUrlsById } from "./config-values.js";

/** Chain nodes: the operator's default RPC URLs and the bounds of every call (src/adapters/chain-nodes.ts). */
export interface ChainSettings {
  /**
   * SIGIL_EVM_RPC_URLS (JSON object, chain id to http(s) URL, e.g. {"1":"https://eth.example"}): the operator's
   * default node per EVM chain id, used when the environment's settings and its organization's custom networks
   * name none. Trusted as the operator wrote it (loopback included).
   */
  evmRpcUrls: Record<number, string>;
  /** SIGIL_SOLANA_RPC_URLS (JSON object, network id 101/102/103 to URL): the same for Solana clusters. */
  solanaRpcUrls: Record<number, string>;
  /** SIGIL_CHAIN_TIMEOUT_MS (default 5000): one node call's deadline; past it the answer is 503 chain_unavailable. */
  timeoutMs: number;
  /** SIGIL_CHAIN_MAX_RESPONSE_BYTES (default 2097152): a node's answer larger than this is refused (503). */
  maxResponseBytes: number;
  /** SIGIL_CHAIN_MULTICALL_BATCH_BYTES (default 4096): calldata per EVM multicall request (viem's batch.multicall.batchSize). */
  multicallBatchBytes: number;
}

export const DEFAULT_CHAIN_SETTINGS: ChainSettings = { evmRpcUrls: {}, solanaRpcUrls: {}, timeoutMs: 5000, maxResponseBytes: 2 * 1024 * 1024, multicallBatchBytes: 4096 };

/** The chain settings of `env` (loadConfig's part for chains). */
export function chainSettings(env: NodeJS.ProcessEnv): ChainSettings {
  return {
    evmRpcUrls: rpcUrlsById("SIGIL_EVM_RPC_URLS", env),
    solanaRpcUrls: rpcUrlsById("SIGIL_SOLANA_RPC_URLS", env),
    timeoutMs: int("SIGIL_CHAIN_TIMEOUT_MS", DEFAULT_CHAIN_SETTINGS.timeoutMs, env),
    maxResponseBytes: int("SIGIL_CHAIN_MAX_RESPONSE_BYTES", DEFAULT_CHAIN_SETTINGS.maxResponseBytes, env),
    multicallBatchBytes: int("SIGIL_CHAIN_MULTICALL_BATCH_BYTES", DEFAULT_CHAIN_SETTINGS.multicallBatchBytes, env),
  };
}
