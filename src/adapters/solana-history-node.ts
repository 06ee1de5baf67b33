import { address, signature } from "@solana/kit";
import type { SolanaHistoryNode, SolanaTransactionRecord } from "../domain/wallet-transactions/node.js";
import type { ChainPost } from "./chain-http.js";
import { looseSolanaRpc, nodeCall, nodeInt, nodeTokenBalance } from "./solana-rpc.js";

const seconds = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/**
 * getSignaturesForAddress and getTransaction through @solana/kit's RPC client (solana-rpc.ts). Transactions
 * are read in `json` encoding, v0 included (maxSupportedTransactionVersion 0).
 */
export function createSolanaHistoryNode(post: ChainPost): SolanaHistoryNode {
  const rpc = looseSolanaRpc(post);
  return {
    async signaturesFor(owner, limit, before) {
      const found = await nodeCall(() => rpc.getSignaturesForAddress!(address(owner), { limit, ...(before ? { before: signature(before) } : {}) }).send());
      return (found as any[]).map((s) => ({ signature: String(s.signature), slot: nodeInt(s.slot), blockTime: seconds(s.blockTime) }));
    },
    async transactions(signatures) {
      const found = await nodeCall(() =>
        Promise.all(signatures.map((s) => rpc.getTransaction!(signature(s), { encoding: "json", maxSupportedTransactionVersion: 0, commitment: "confirmed" }).send())),
      );
      return (found as any[]).map((tx, i): SolanaTransactionRecord | null => {
        if (!tx?.meta || !tx.transaction?.message) return null;
        const loaded = tx.meta.loadedAddresses ?? { writable: [], readonly: [] };
        return {
          signature: signatures[i]!,
          slot: nodeInt(tx.slot),
          blockTime: seconds(tx.blockTime),
          accountKeys: [...tx.transaction.message.accountKeys, ...(loaded.writable ?? []), ...(loaded.readonly ?? [])].map(String),
          err: tx.meta.err ?? null,
          fee: nodeInt(tx.meta.fee),
          preBalances: (tx.meta.preBalances ?? []).map(nodeInt),
          postBalances: (tx.meta.postBalances ?? []).map(nodeInt),
          preTokenBalances: (tx.meta.preTokenBalances ?? []).map(nodeTokenBalance),
          postTokenBalances: (tx.meta.postTokenBalances ?? []).map(nodeTokenBalance),
        };
      });
    },
  };
}
