import type { ChainSettings } from "../config-chains.js";
import type { WebhookSettings } from "../config.js";
import type { ChainNodes } from "../domain/chains/nodes.js";
import { createChainHttp } from "./chain-http.js";
import { createEvmNode } from "./evm-node.js";
import { createSolanaNode } from "./solana-node.js";

/** The chain nodes of Deps: one HTTP layer (policy, deadline, size bound) under both families' clients. */
export function createChainNodes(settings: ChainSettings, webhooks: WebhookSettings): ChainNodes {
  const postTo = createChainHttp(settings, webhooks);
  return {
    evm: (endpoint) => createEvmNode(endpoint, postTo(endpoint), settings),
    solana: (endpoint) => createSolanaNode(postTo(endpoint)),
  };
}
