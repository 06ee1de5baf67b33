import { createSolanaRpcFromTransport, type RpcTransport } from "@solana/kit";
import { asChainError } from "./chain-errors.js";
import type { ChainPost } from "./chain-http.js";
import { parseJsonWithBigInts } from "./json-bigints.js";

const stringify = (value: unknown) => JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? Number(v) : v));

/**
 * @solana/kit's RPC client over `post` (pinned connections, deadline, bounded answer; chain-http.ts), large
 * integers parsed as bigints as kit's own transport does. Untyped: kit's method overloads do not name every
 * field a current node answers (simulateTransaction's balances), so callers read the answer themselves.
 */
export function looseSolanaRpc(post: ChainPost): Record<string, (...args: unknown[]) => { send(): Promise<any> }> {
  const transport: RpcTransport = async ({ payload, signal }) => parseJsonWithBigInts(await post(stringify(payload), signal)) as never;
  return createSolanaRpcFromTransport(transport) as never;
}

/** Runs a node call; its failure becomes the caller's DomainError (chain_unavailable, not_configured). */
export async function nodeCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw asChainError(err);
  }
}

/** A node's integer as kit hands it over: a bigint (kit widens u64 values) or a number. */
export const nodeInt = (v: unknown): bigint => (typeof v === "bigint" ? v : BigInt(Math.trunc(Number(v ?? 0))));

/** A node's UiTransactionTokenBalance: the amount is a string of base units, its decimals beside it. */
export const nodeTokenBalance = (b: any) => ({
  accountIndex: Number(b.accountIndex),
  mint: String(b.mint),
  owner: typeof b.owner === "string" ? (b.owner as string) : null,
  amount: BigInt(b.uiTokenAmount?.amount ?? "0"),
  decimals: Number(b.uiTokenAmount?.decimals ?? 0),
});
