import { findCustomNetworkByChainId } from "../../db/repositories/custom-networks.js";
import type { Deps } from "../deps.js";
import type { ResolvedNetwork } from "../chains/endpoints.js";

export interface NativeCurrency {
  name: string;
  symbol: string;
  decimals: number;
}

/** viem's list of chains, loaded on first use: several hundred definitions the service's start need not pay for. */
let knownChains: Promise<Map<number, NativeCurrency>> | undefined;
const chainCurrencies = () =>
  (knownChains ??= import("viem/chains").then(
    (chains) =>
      new Map(
        (Object.values(chains) as { id?: number; nativeCurrency?: NativeCurrency }[]).flatMap((c) => (c.id && c.nativeCurrency ? [[c.id, c.nativeCurrency] as const] : [])),
      ),
  ));

/** What nearly every EVM chain uses; a chain id neither the organization nor viem's list describes gets this. */
const ETHER: NativeCurrency = { name: "Ether", symbol: "ETH", decimals: 18 };

/**
 * The native currency of an EVM network: as the organization's custom network of that chain id describes it,
 * else as viem's chain list does (the chains' own published definitions), else Ether's 18 decimals.
 */
export async function nativeCurrencyOf(deps: Pick<Deps, "db">, net: ResolvedNetwork, organizationId: string): Promise<NativeCurrency> {
  const custom = await findCustomNetworkByChainId(deps.db, organizationId, net.networkId);
  if (custom) return { name: custom.nativeCurrency.name, symbol: custom.nativeCurrency.symbol, decimals: custom.nativeCurrency.decimals };
  const known = (await chainCurrencies()).get(net.networkId);
  return known ? { name: known.name, symbol: known.symbol, decimals: known.decimals } : ETHER;
}
