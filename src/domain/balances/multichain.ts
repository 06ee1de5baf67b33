import { badRequest } from "../../errors.js";
import type { Deps } from "../deps.js";
import { chainFamilyOf } from "../chains/endpoints.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { normalizeWalletAddress } from "../wallets/addresses.js";
import { accountBalances, type TokenBalance } from "./account.js";

/** Address-network pairs one request may read: each is a node call (or two), so a request stays a few calls. */
export const MAX_NETWORK_READS = 10;

export interface MultichainRequest {
  address: string;
  /** The published client's chain name (ETH means EVM). */
  chain: string;
  /** None: the chain's default network (resolveNetwork). */
  networkIds: number[];
  whitelistedContracts: string[];
}

export interface AddressBalances {
  walletAddress: string;
  chain: string;
  networks: { networkId: number; balances: TokenBalance[] }[];
}

/**
 * Balances of several addresses on several networks, each read as accountBalances reads one (its own cache
 * entry), all in parallel. All or nothing: the first pair that fails is the answer, never a list with a gap
 * that reads as "holds nothing". More than MAX_NETWORK_READS pairs: 400 too_many_networks, nothing read.
 */
export async function multichainBalances(deps: Deps, env: PublicEnvironment, requests: MultichainRequest[]): Promise<AddressBalances[]> {
  const pairs = requests.reduce((n, r) => n + Math.max(1, new Set(r.networkIds).size), 0);
  if (pairs > MAX_NETWORK_READS)
    throw badRequest("too_many_networks", `at most ${MAX_NETWORK_READS} address-network pairs per request, got ${pairs}`, { field: "balanceRequests", limit: MAX_NETWORK_READS });
  return Promise.all(
    requests.map(async (r) => {
      const ids = r.networkIds.length > 0 ? [...new Set(r.networkIds)] : [undefined];
      const networks = await Promise.all(
        ids.map(async (networkId) => {
          return accountBalances(deps, env, { chainName: r.chain, accountAddress: r.address, networkId, whitelistedContracts: r.whitelistedContracts });
        }),
      );
      return { walletAddress: normalizeWalletAddress(chainFamilyOf(r.chain), r.address), chain: r.chain, networks };
    }),
  );
}
