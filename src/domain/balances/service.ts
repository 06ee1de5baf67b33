import { notFound } from "../../errors.js";
import { findUser } from "../../db/repositories/users.js";
import { listUserWallets } from "../../db/repositories/wallets.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { listUserWaasWallets } from "../../db/repositories/waas-wallets.js";
import { chainAliases, normalizeWalletAddress } from "../wallets/addresses.js";

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

/** The chain an additional address of a wallet is on, by its type (a Bitcoin wallet's payment address...). */
const ADDITIONAL_ADDRESS_CHAIN: Readonly<Record<string, string>> = { ordinals: "BTC", payment: "BTC", cosmos: "COSMOS", evm: "EVM" };

/** An address the user holds and the chain names it is held under. */
interface HeldAddress {
  chains: string[];
  address: string;
}

/** The canonical form of an address on a chain (EIP-55 for EVM, lower-case bech32...), or null when it is not one. */
function canonical(chain: string, address: string): string | null {
  try {
    return normalizeWalletAddress(chain, address);
  } catch {
    return null;
  }
}

/** Every address the user holds: its live wallets' addresses, their additional addresses and its WaaS wallets. */
async function heldAddresses(deps: Pick<Deps, "db">, environmentId: string, userId: string): Promise<HeldAddress[]> {
  const [wallets, waas] = await Promise.all([listUserWallets(deps.db, environmentId, userId), listUserWaasWallets(deps.db, environmentId, userId)]);
  return [
    ...wallets.flatMap((w) => [
      { chains: chainAliases(w.chain), address: w.address },
      ...w.additionalAddresses.map((a) => ({ chains: chainAliases(ADDITIONAL_ADDRESS_CHAIN[a.type] ?? w.chain), address: a.address })),
    ]),
    ...waas.map((w) => ({ chains: chainAliases(w.chain), address: w.address })),
  ];
}

/**
 * The requested wallets of a user, each with the requested networks. Every address must be one the user
 * holds on that chain (404 otherwise), so the operation reveals nothing about other users: a live wallet's
 * address, one of its additional addresses (a Bitcoin wallet's payment address, under BTC) or a WaaS wallet's.
 * Addresses compare in their canonical form, so an EVM address matches in any case and a bech32 one in
 * upper case too; the answer carries the canonical form. Sigil keeps no chain index and calls no node: what
 * it answers is which wallets and networks, never made-up amounts.
 */
export async function userAccountBalances(deps: Deps, access: EnvironmentAccess, userId: string, requests: BalanceRequest[]): Promise<ChainBalances[]> {
  const user = await findUser(deps.db, access.environmentId, userId);
  if (!user) throw notFound("user");
  const held = await heldAddresses(deps, access.environmentId, userId);
  return requests.map((r) => {
    const wanted = canonical(r.chain, r.address) ?? r.address;
    const found = held.find((h) => h.chains.includes(r.chain) && (canonical(r.chain, h.address) ?? h.address) === wanted);
    if (!found) throw notFound("wallet");
    return { walletAddress: wanted, chain: r.chain, networkIds: [...new Set(r.networkIds)] };
  });
}
