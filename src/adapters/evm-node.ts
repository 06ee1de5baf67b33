import { createPublicClient, erc20Abi, http, type Address } from "viem";
import type { ChainSettings } from "../config-chains.js";
import type { ChainEndpoint, Erc20Metadata, EvmNode } from "../domain/chains/nodes.js";
import { asChainError } from "./chain-errors.js";
import type { ChainPost } from "./chain-http.js";

/**
 * An EVM node through viem's public client. Its HTTP goes through `post` (pinned connections, deadline,
 * bounded answer; src/adapters/chain-http.ts); viem retries nothing (a failure is answered at once, 503).
 * Token reads are batched with viem's deployless multicall: the aggregator contract travels inside the
 * eth_call, so chains without a deployed Multicall3 (local ones, new ones) are read the same way.
 */
export function createEvmNode(endpoint: ChainEndpoint, post: ChainPost, settings: ChainSettings): EvmNode {
  const client = evmPublicClient(endpoint, post, settings);
  const multicall = <T>(contracts: readonly { address: Address; abi: typeof erc20Abi; functionName: string; args?: readonly unknown[] }[]) =>
    client
      .multicall({ contracts: contracts as never, allowFailure: true, deployless: true, batchSize: settings.multicallBatchBytes })
      .then((results) => (results as { status: "success" | "failure"; result?: unknown }[]).map((r) => (r.status === "success" ? (r.result as T) : null)))
      .catch((err) => {
        throw asChainError(err);
      });
  return {
    chainId: () =>
      client.getChainId().catch((err) => {
        throw asChainError(err);
      }),
    nativeBalance: (address) =>
      client.getBalance({ address: address as Address }).catch((err) => {
        throw asChainError(err);
      }),
    async erc20Balances(owner, tokens) {
      if (tokens.length === 0) return [];
      return multicall<bigint>(tokens.map((t) => ({ address: t as Address, abi: erc20Abi, functionName: "balanceOf", args: [owner as Address] })));
    },
    async erc20Metadata(tokens) {
      if (tokens.length === 0) return [];
      const fields = ["name", "symbol", "decimals"] as const;
      const results = await multicall<string | number>(tokens.flatMap((t) => fields.map((functionName) => ({ address: t as Address, abi: erc20Abi, functionName }))));
      return tokens.map((_, i): Erc20Metadata | null => {
        const [name, symbol, decimals] = results.slice(i * 3, i * 3 + 3);
        if (typeof name !== "string" || typeof symbol !== "string" || typeof decimals !== "number") return null;
        return { name, symbol, decimals };
      });
    },
  };
}

/** viem's public client over `post` (the bounded, policy-checked HTTP of src/adapters/chain-http.ts), retrying nothing. */
export function evmPublicClient(endpoint: ChainEndpoint, post: ChainPost, settings: ChainSettings) {
  return createPublicClient({
    transport: http(endpoint.url, {
      retryCount: 0,
      timeout: settings.timeoutMs,
      fetchFn: async (_input, init) =>
        new Response(await post(String(init?.body ?? ""), init?.signal), { status: 200, headers: { "content-type": "application/json" } }),
    }),
  });
}
