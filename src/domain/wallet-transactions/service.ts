import { badRequest } from "../../errors.js";
import type { Deps } from "../deps.js";
import { chainFamilyOf, resolveNetwork } from "../chains/endpoints.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { normalizeWalletAddress } from "../wallets/addresses.js";
import { evmWalletTransactions } from "./evm.js";
import { solanaWalletTransactions } from "./solana.js";
import type { WalletTransactionsPage } from "./transaction.js";

/** Transactions per page when the request names no limit. */
export const DEFAULT_TRANSACTIONS_LIMIT = 20;
/** The most per page: each transaction may cost the node a call or two. */
export const MAX_TRANSACTIONS_LIMIT = 50;

export interface WalletTransactionsRequest {
  chainName: string;
  address: string;
  networkId?: number;
  limit?: number;
  offset?: string;
}

/**
 * The recent transactions of an address on one network of an EVM or Solana chain, from the environment's
 * node (resolveNetwork): Solana from the node's own address index (getSignaturesForAddress), EVM from what a
 * node without an index can give (evmWalletTransactions: token transfer logs over a bounded block range,
 * direct transactions over its newest blocks). A page holds at most MAX_TRANSACTIONS_LIMIT.
 */
export async function walletTransactions(deps: Deps, env: PublicEnvironment, req: WalletTransactionsRequest): Promise<WalletTransactionsPage> {
  const limit = req.limit ?? DEFAULT_TRANSACTIONS_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_TRANSACTIONS_LIMIT)
    throw badRequest("invalid_limit", `limit must be between 1 and ${MAX_TRANSACTIONS_LIMIT}`, { field: "limit", limit: MAX_TRANSACTIONS_LIMIT });
  const family = chainFamilyOf(req.chainName);
  let address: string;
  try {
    address = normalizeWalletAddress(family, req.address);
  } catch {
    throw badRequest("invalid_wallet_address", `address is not a valid ${family} address`, { field: "address", chain: family });
  }
  const net = await resolveNetwork(deps, env, req.chainName, req.networkId);
  const offset = req.offset === undefined || req.offset === "" ? undefined : req.offset;
  return net.family === "EVM" ? evmWalletTransactions(deps, env, net, address, limit, offset) : solanaWalletTransactions(deps, net, address, limit, offset);
}
