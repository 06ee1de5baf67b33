import { createHash } from "node:crypto";
import { badRequest } from "../../errors.js";
import { listGates } from "../../db/repositories/gates.js";
import type { Deps } from "../deps.js";
import { checkedNetworkRequest, resolveNetwork, type ResolvedNetwork } from "../chains/endpoints.js";
import { tokensOfChain } from "../chains/tokens.js";
import type { Erc20Metadata } from "../chains/nodes.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { normalizeWalletAddress } from "../wallets/addresses.js";
import { nativeCurrencyOf } from "./native-currency.js";
import { withFiatValues } from "../rates/prices.js";

/**
 * Balances are read again after this long: a wallet app shows a transfer within a few seconds, and a burst of
 * reads of one address (a page showing it in several places, many api processes) costs the node one call.
 */
export const BALANCES_TTL_SECONDS = 5;
/** A token's name, symbol and decimals never change once deployed (in practice): a day spares the node. */
export const TOKEN_METADATA_TTL_SECONDS = 24 * 3600;

/** One token an address holds, in the published client's TokenBalance shape (amounts as read, never guessed). */
export interface TokenBalance {
  networkId: number;
  address: string;
  name: string;
  symbol: string;
  decimals: number;
  logoURI: string;
  /** Base units, exact (the transport may only carry them as a JSON number). */
  rawBalance: bigint;
  /** rawBalance / 10^decimals. */
  balance: number;
  isNative: boolean;
  /** USD per token from the price source (src/domain/rates/prices.ts); absent when none is configured or it does not price the token. */
  price?: number;
  /** balance × price; absent with the price. */
  marketValue?: number;
}

export interface AccountBalancesRequest {
  chainName: string;
  accountAddress: string;
  networkId?: number;
  /** Default true: the native currency comes first. */
  includeNative?: boolean;
  /** Contracts (EVM) or mints (Solana) to report besides the known ones. */
  whitelistedContracts: string[];
  /** Read from the node even when a cached answer is fresh. */
  forceRefresh?: boolean;
}

/** The EVM native currency's placeholder address, as wallets and the published client use it. */
const EVM_NATIVE_ADDRESS = "0x0000000000000000000000000000000000000000";
/** Solana's native currency is held by the system program's accounts. */
const SOL_NATIVE_ADDRESS = "11111111111111111111111111111111";

const sha = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 32);

function accountAddressOf(family: "EVM" | "SOL", address: string): string {
  try {
    return normalizeWalletAddress(family, address);
  } catch {
    throw badRequest("invalid_wallet_address", `accountAddress is not a valid ${family} address`, { field: "accountAddress", chain: family });
  }
}

/** The request's token contracts (or mints) in canonical form; 400 invalid_contract_address for one that is not an address. */
function requestedTokens(family: "EVM" | "SOL", contracts: string[]): string[] {
  return contracts.map((a) => {
    try {
      return normalizeWalletAddress(family, a);
    } catch {
      throw badRequest("invalid_contract_address", `${a.slice(0, 100)} is not a ${family} token address`, { field: "whitelistedContracts" });
    }
  });
}

/** The ERC-20s of an EVM network the environment cares about: the known list, its token gates' tokens, the request's. */
async function evmTokenList(deps: Pick<Deps, "db">, env: PublicEnvironment, networkId: number, requested: string[]): Promise<string[]> {
  const known = tokensOfChain("EVM", networkId).flatMap((t) => t.tokenAddresses.map((a) => a.contractAddress));
  const { gates } = await listGates(deps.db, env.environmentId, { offset: 0, limit: 500 });
  const gated = gates.flatMap((g) => g.rules.filter((r) => r.type === "token" && r.chain === `eip155:${networkId}`).map((r) => r.address.contractAddress));
  // Stored addresses were checked when written; one that no longer reads as an address is skipped, not the request's fault.
  const stored = [...known, ...gated].flatMap((a) => {
    try {
      return [normalizeWalletAddress("EVM", a)];
    } catch {
      return [];
    }
  });
  return [...new Set([...stored, ...requested])];
}

const toDecimal = (raw: bigint, decimals: number) => Number(raw) / 10 ** decimals;

interface CachedBalance extends Omit<TokenBalance, "rawBalance"> {
  rawBalance: string;
}

interface CachedAnswer {
  networkId: number;
  balances: CachedBalance[];
}

/**
 * The balances of an address on one network of an EVM or Solana chain, read from the environment's node
 * (resolveNetwork), with the network read (the one asked, or the default chosen): the native currency, then
 * each token with a non-zero balance. A token the node could not read as one is left out (never shown as
 * zero). Cached BALANCES_TTL_SECONDS in the shared store, keyed by the request as the environment asked it:
 * a hit costs one store read, not the settings, custom-network, identity and gate reads that choose the node
 * and the token list, so a change to those shows within the same few seconds as a transfer does.
 */
export async function accountBalances(deps: Deps, env: PublicEnvironment, req: AccountBalancesRequest): Promise<{ networkId: number; balances: TokenBalance[] }> {
  const family = checkedNetworkRequest(req.chainName, req.networkId);
  const owner = accountAddressOf(family, req.accountAddress);
  const requested = requestedTokens(family, req.whitelistedContracts);
  const includeNative = req.includeNative !== false;
  const key = `chain-balances:v2:${env.environmentId}:${family}:${req.networkId ?? "default"}:${owner}:${includeNative}:${sha(requested.join(","))}`;
  if (!req.forceRefresh) {
    const hit = await deps.store.get(key);
    if (hit) {
      const cached = JSON.parse(hit) as CachedAnswer;
      const balances = cached.balances.map((b) => ({ ...b, rawBalance: BigInt(b.rawBalance) }));
      return { networkId: cached.networkId, balances: await withFiatValues(deps, env, family, balances) };
    }
  }
  const net = await resolveNetwork(deps, env, req.chainName, req.networkId);
  // Solana's node lists every mint an owner holds, so only EVM needs a token list.
  const tokens = net.family === "EVM" ? await evmTokenList(deps, env, net.networkId, requested) : [];
  const balances = net.family === "EVM" ? await evmBalances(deps, env, net, owner, tokens, includeNative) : await solanaBalances(deps, net, owner, includeNative);
  const answer: CachedAnswer = { networkId: net.networkId, balances: balances.map((b) => ({ ...b, rawBalance: b.rawBalance.toString() })) };
  await deps.store.set(key, JSON.stringify(answer), BALANCES_TTL_SECONDS);
  // Prices are cached on their own (a shorter life, shared by every address holding the token).
  return { networkId: net.networkId, balances: await withFiatValues(deps, env, net.family, balances) };
}

async function evmBalances(deps: Deps, env: PublicEnvironment, net: ResolvedNetwork, owner: string, tokens: string[], includeNative: boolean): Promise<TokenBalance[]> {
  const node = deps.chainNodes.evm(net.endpoint);
  const [native, raws] = await Promise.all([includeNative ? node.nativeBalance(owner) : null, node.erc20Balances(owner, tokens)]);
  const held = tokens.flatMap((token, i) => (raws[i] ? [{ token, raw: raws[i] }] : []));
  const metadata = await tokenMetadata(deps, net, held.map((h) => h.token));
  const out: TokenBalance[] = [];
  if (native !== null) {
    const currency = await nativeCurrencyOf(deps, net, env.organizationId);
    out.push({ networkId: net.networkId, address: EVM_NATIVE_ADDRESS, ...currency, logoURI: "", rawBalance: native, balance: toDecimal(native, currency.decimals), isNative: true });
  }
  held.forEach((h, i) => {
    const m = metadata[i];
    if (!m) return;
    out.push({ networkId: net.networkId, address: h.token, ...m, logoURI: "", rawBalance: h.raw, balance: toDecimal(h.raw, m.decimals), isNative: false });
  });
  return out;
}

/** ERC-20 name, symbol and decimals, cached TOKEN_METADATA_TTL_SECONDS per node URL (a tenant's node cannot name another's tokens). */
export async function tokenMetadata(deps: Deps, net: ResolvedNetwork, tokens: string[]): Promise<(Erc20Metadata | null)[]> {
  const keyOf = (t: string) => `chain-token:v1:${net.networkId}:${sha(`${net.endpoint.trusted}|${net.endpoint.url}`)}:${t}`;
  const cached = await Promise.all(tokens.map((t) => deps.store.get(keyOf(t))));
  const missing = tokens.filter((_, i) => !cached[i]);
  const read = missing.length > 0 ? await deps.chainNodes.evm(net.endpoint).erc20Metadata(missing) : [];
  await Promise.all(missing.map((t, i) => (read[i] ? deps.store.set(keyOf(t), JSON.stringify(read[i]), TOKEN_METADATA_TTL_SECONDS) : undefined)));
  return tokens.map((t, i) => (cached[i] ? (JSON.parse(cached[i]) as Erc20Metadata) : read[missing.indexOf(t)] ?? null));
}

/** SOL and every SPL mint the owner holds (the node lists them all, so no token list is needed); known mints get their names. */
async function solanaBalances(deps: Deps, net: ResolvedNetwork, owner: string, includeNative: boolean): Promise<TokenBalance[]> {
  const node = deps.chainNodes.solana(net.endpoint);
  const [lamports, holdings] = await Promise.all([includeNative ? node.lamports(owner) : null, node.splHoldings(owner)]);
  const known = new Map(tokensOfChain("SOL", net.networkId).flatMap((t) => t.tokenAddresses.map((a) => [a.contractAddress, t] as const)));
  const out: TokenBalance[] = [];
  if (lamports !== null)
    out.push({ networkId: net.networkId, address: SOL_NATIVE_ADDRESS, name: "Solana", symbol: "SOL", decimals: 9, logoURI: "", rawBalance: lamports, balance: toDecimal(lamports, 9), isNative: true });
  for (const h of holdings) {
    if (h.amount === 0n) continue;
    const t = known.get(h.mint);
    out.push({ networkId: net.networkId, address: h.mint, name: t?.name ?? "", symbol: t?.symbol ?? "", decimals: h.decimals, logoURI: "", rawBalance: h.amount, balance: toDecimal(h.amount, h.decimals), isNative: false });
  }
  return out;
}
