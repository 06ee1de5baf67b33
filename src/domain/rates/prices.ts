import type { Deps } from "../deps.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { vendorCacheId, vendorEndpointOf } from "../vendors/endpoint.js";
import { QUOTE_CURRENCY } from "./service.js";

/** A token's price is read again after this long: balances are cached 5 s, and a price a few seconds old is the market's anyway. */
export const PRICE_TTL_SECONDS = 30;

/** What the fiat fields need of a holding. */
interface Priced {
  networkId: number;
  address: string;
  balance: number;
  price?: number;
  marketValue?: number;
}

/** The price source's id of a token on a network (src/domain/rates/source.ts): `<FAMILY>:<networkId>:<address>`. */
export const assetId = (family: "EVM" | "SOL", b: Pick<Priced, "networkId" | "address">) => `${family}:${b.networkId}:${b.address}`;

/**
 * The holdings with `price` (USD) and `marketValue` (balance × price) where the price source prices the
 * token (the environment's own price source, else the operator's). Without a source, or when it fails (or the
 * environment's source URL is refused), the holdings are answered as they are: the fields stay absent
 * (unknown, never 0), and the balances read, which the node answered, does not fail for a missing price.
 * Each id's answer (a price or "not priced") is cached PRICE_TTL_SECONDS in the shared store.
 */
export async function withFiatValues<T extends Priced>(
  deps: Pick<Deps, "db" | "sealer" | "config" | "store" | "vendors" | "log">,
  env: PublicEnvironment,
  family: "EVM" | "SOL",
  holdings: T[],
): Promise<T[]> {
  if (holdings.length === 0) return holdings;
  const endpoint = await vendorEndpointOf(deps, env, "price source");
  if (!endpoint) return holdings;
  const ids = [...new Set(holdings.map((h) => assetId(family, h)))];
  // Keyed by the source too: one environment's own source never fills another's (or the operator's) prices.
  const source = vendorCacheId(endpoint);
  const keyOf = (id: string) => `price:v2:${source}:${QUOTE_CURRENCY}:${id}`;
  const cached = await Promise.all(ids.map((id) => deps.store.get(keyOf(id))));
  const prices = new Map<string, number | null>(ids.flatMap((id, i) => (cached[i] ? [[id, (JSON.parse(cached[i]) as { p: number | null }).p] as const] : [])));
  const missing = ids.filter((id) => !prices.has(id));
  if (missing.length > 0) {
    try {
      const read = await deps.vendors.priceSource(endpoint).prices(missing, QUOTE_CURRENCY);
      for (const id of missing) prices.set(id, read[id] ?? null);
      await Promise.all(missing.map((id) => deps.store.set(keyOf(id), JSON.stringify({ p: read[id] ?? null }), PRICE_TTL_SECONDS)));
    } catch (err) {
      deps.log.warn("token prices unavailable; balances answered without fiat values", { error: (err as Error).message });
    }
  }
  return holdings.map((h) => {
    const price = prices.get(assetId(family, h));
    return typeof price === "number" ? { ...h, price, marketValue: h.balance * price } : h;
  });
}
