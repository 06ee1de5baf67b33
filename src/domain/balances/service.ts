import { notFound } from "../../errors.js";
import { findUser } from "../../db/repositories/users.js";
import { listUserWallets } from "../../db/repositories/wallets.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { chainAliases } from "../wallets/addresses.js";

export interface BalanceRequest {
  address: string;
  /** The published client's chain name (ETH means EVM). */
  chain: string;
  networkIds: number[];
}

export interface ChainBalances {
  walletAddress: string;
  chain: string;
  networkIds: number[];
}

/** EVM addresses compare case-insensitively (EIP-55 is only a checksum); others exactly. */
const sameAddress = (evm: boolean, a: string, b: string) => (evm ? a.toLowerCase() === b.toLowerCase() : a === b);

/**
 * The requested wallets of a user, each with the requested networks. Every address must be one of the
 * user's live wallets on that chain (404 otherwise), so the operation reveals nothing about other users.
 * Sigil keeps no chain index and calls no node: what it answers is which wallets and networks, never
 * made-up amounts.
 */
export async function userAccountBalances(deps: Deps, access: EnvironmentAccess, userId: string, requests: BalanceRequest[]): Promise<ChainBalances[]> {
  const user = await findUser(deps.db, access.environmentId, userId);
  if (!user) throw notFound("user");
  const wallets = await listUserWallets(deps.db, access.environmentId, userId);
  return requests.map((r) => {
    const names = chainAliases(r.chain);
    const wallet = wallets.find((w) => names.includes(w.chain) && sameAddress(names.includes("EVM"), w.address, r.address));
    if (!wallet) throw notFound("wallet");
    return { walletAddress: wallet.address, chain: r.chain, networkIds: [...new Set(r.networkIds)] };
  });
}
