import { badRequest, DomainError, notFound } from "../../errors.js";
import { findUser } from "../../db/repositories/users.js";
import { listUserWallets } from "../../db/repositories/wallets.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { listUserWaasWallets } from "../../db/repositories/waas-wallets.js";
import { chainAliases, normalizeWalletAddress } from "../wallets/addresses.js";
import { accountBalances, type TokenBalance } from "./account.js";

export interface BalanceRequest {
  address: string;
  /** The published client's chain name (ETH means EVM). */
  chain: string;
  networkIds: number[];
  whitelistedContracts: string[];
}

export interface ChainBalances {
  walletAddress: string;
  chain: string;
  /** balances: what the network's node says; absent where Sigil reads no node for it (unknown, not zero). */
  networks: { networkId: number; balances?: TokenBalance[] }[];
}

/** Wallet-network pairs one management request may name: each may be a node call, read in parallel. */
const MAX_MANAGEMENT_NETWORK_READS = 50;

/**
 * Networks Sigil cannot read (a chain family it does not read, no node configured, or a node that serves
 * another chain): answered without balances.
 */
const UNREADABLE = new Set(["unsupported_chain", "not_configured", "chain_mismatch"]);

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
 * The requested wallets of a user, each with the requested networks and, where the environment has a node
 * for the network (src/domain/chains/endpoints.ts), the balances read from it (as the SDK's
 * GetAccountBalances reads them, cached alike). Every address must be one the user holds on that chain (404
 * otherwise), so the operation reveals nothing about other users: a live wallet's address, one of its
 * additional addresses (a Bitcoin wallet's payment address, under BTC) or a WaaS wallet's. Addresses compare
 * in their canonical form, so an EVM address matches in any case and a bech32 one in upper case too; the
 * answer carries the canonical form. A network of a chain Sigil does not read, or without a node, has no
 * `balances` (unknown, never zero); a node that fails answers 503 chain_unavailable for the whole request. More than
 * MAX_MANAGEMENT_NETWORK_READS wallet-network pairs: 400 too_many_networks, nothing read.
 */
export async function userAccountBalances(deps: Deps, access: EnvironmentAccess, userId: string, requests: BalanceRequest[]): Promise<ChainBalances[]> {
  const pairs = requests.reduce((n, r) => n + new Set(r.networkIds).size, 0);
  if (pairs > MAX_MANAGEMENT_NETWORK_READS)
    throw badRequest("too_many_networks", `at most ${MAX_MANAGEMENT_NETWORK_READS} wallet-network pairs per request, got ${pairs}`, {
      field: "balanceRequests",
      limit: MAX_MANAGEMENT_NETWORK_READS,
    });
  const user = await findUser(deps.db, access.environmentId, userId);
  if (!user) throw notFound("user");
  const held = await heldAddresses(deps, access.environmentId, userId);
  const wallets = requests.map((r) => {
    const wanted = canonical(r.chain, r.address) ?? r.address;
    const found = held.find((h) => h.chains.includes(r.chain) && (canonical(r.chain, h.address) ?? h.address) === wanted);
    if (!found) throw notFound("wallet");
    return { request: r, walletAddress: wanted };
  });
  return Promise.all(
    wallets.map(async ({ request: r, walletAddress }) => ({
      walletAddress,
      chain: r.chain,
      networks: await Promise.all([...new Set(r.networkIds)].map((networkId) => networkBalances(deps, access, r, walletAddress, networkId))),
    })),
  );
}

async function networkBalances(deps: Deps, access: EnvironmentAccess, r: BalanceRequest, address: string, networkId: number) {
  try {
    const { balances } = await accountBalances(deps, access, { chainName: r.chain, accountAddress: address, networkId, whitelistedContracts: r.whitelistedContracts });
    return { networkId, balances };
  } catch (err) {
    if (err instanceof DomainError && UNREADABLE.has(err.code)) return { networkId };
    throw err;
  }
}
