import { address } from "@solana/kit";
import type { SolanaSimulation, SolanaTransactionNode } from "../domain/solana-transactions/node.js";
import type { ChainPost } from "./chain-http.js";
import { looseSolanaRpc, nodeCall, nodeInt, nodeTokenBalance } from "./solana-rpc.js";

const list = <T>(v: unknown, each: (item: any) => T): T[] | null => (Array.isArray(v) ? v.map(each) : null);

/**
 * simulateTransaction and getRecentPrioritizationFees through @solana/kit's RPC client (solana-rpc.ts).
 * Balances before and after come from the node's own fields (preBalances / postBalances / pre- and
 * postTokenBalances, Agave 2.3+); a node that does not report them leaves them null.
 */
export function createSolanaTransactionNode(post: ChainPost): SolanaTransactionNode {
  const rpc = looseSolanaRpc(post);
  return {
    async simulate(wireBase64) {
      const { value } = await nodeCall(() =>
        rpc.simulateTransaction!(wireBase64, { encoding: "base64", sigVerify: false, replaceRecentBlockhash: true, commitment: "confirmed" }).send(),
      );
      const loaded = value.loadedAddresses;
      const sim: SolanaSimulation = {
        err: value.err ?? null,
        logs: Array.isArray(value.logs) ? value.logs.map(String) : [],
        unitsConsumed: value.unitsConsumed === undefined || value.unitsConsumed === null ? null : Number(value.unitsConsumed),
        fee: value.fee === undefined || value.fee === null ? null : nodeInt(value.fee),
        loadedAddresses: loaded ? { writable: (loaded.writable ?? []).map(String), readonly: (loaded.readonly ?? []).map(String) } : null,
        preBalances: list(value.preBalances, nodeInt),
        postBalances: list(value.postBalances, nodeInt),
        preTokenBalances: list(value.preTokenBalances, nodeTokenBalance),
        postTokenBalances: list(value.postTokenBalances, nodeTokenBalance),
      };
      return sim;
    },
    async recentPrioritizationFees(accounts) {
      const fees = await nodeCall(() => rpc.getRecentPrioritizationFees!(accounts.map((a) => address(a))).send());
      return (fees as { prioritizationFee: unknown }[]).map((f) => nodeInt(f.prioritizationFee));
    },
  };
}
