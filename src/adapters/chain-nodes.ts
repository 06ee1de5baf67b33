import type { ChainSettings } from "../config-chains.js";
import type { WebhookSettings } from "../config.js";
import type { ChainNodes } from "../domain/chains/nodes.js";
import { createChainHttp } from "./chain-http.js";
import { createEvmAccounts } from "./evm-accounts.js";
import { createEvmNode } from "./evm-node.js";
import { createEvmSimulator } from "./evm-simulator.js";
import { createSolanaNode } from "./solana-node.js";
import { createSolanaTransactionNode } from "./solana-transactions-node.js";
import { createEvmHistoryNode } from "./evm-history-node.js";
import { createSolanaHistoryNode } from "./solana-history-node.js";

/** The chain nodes of Deps: one HTTP layer (policy, deadline, size bound) under both families' clients. */
export function createChainNodes(settings: ChainSettings, webhooks: WebhookSettings): ChainNodes {
  const postTo = createChainHttp(settings, webhooks);
  return {
    evm: (endpoint) => createEvmNode(endpoint, postTo(endpoint), settings),
    solana: (endpoint) => createSolanaNode(postTo(endpoint)),
    solanaTransactions: (endpoint) => createSolanaTransactionNode(postTo(endpoint)),
    evmHistory: (endpoint) => createEvmHistoryNode(endpoint, postTo(endpoint), settings),
    solanaHistory: (endpoint) => createSolanaHistoryNode(postTo(endpoint)),
    evmAccounts: (endpoint) => createEvmAccounts(endpoint, postTo(endpoint), settings),
    evmSimulator: (endpoint) => createEvmSimulator(endpoint, postTo(endpoint), settings),
  };
}
