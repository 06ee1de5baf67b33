import { createHash } from "node:crypto";
import { listExchangeRates } from "../../db/repositories/exchange-rates.js";
import type { Deps } from "../deps.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { vendorCacheId, vendorEndpointOf } from "../vendors/endpoint.js";

/** The currency fiat rates are quoted from and token prices in: the one every price source quotes. */
export const QUOTE_CURRENCY = "USD";
/** A live answer is kept this long in the shared store: rates move slowly, and a page load of many clients costs the source one call. */
export const RATES_TTL_SECONDS = 60;

/** One rate in the published client's Currency shape: one `symbol` is worth `value` of `code`. */
export interface CurrencyRate {
  /** The priced currency's name. */
  name: string;
  symbol: string;
  /** fiat or crypto (of the priced currency). */
  type: "fiat" | "crypto";
  code: string;
  value: number;
}

const currencyNames = new Intl.DisplayNames(["en"], { type: "currency" });
const fiatName = (code: string) => {
  try {
    return currencyNames.of(code) ?? code;
  } catch {
    return code;
  }
};

/**
 * The exchange rates a client app shows, from the environment's price source (its own provider of kind
 * priceSource, else the operator's; src/domain/vendors/endpoint.ts). Without one: the configured table (migration 008, the
 * management `GET /exchangeRates`), the operator's own reference rates. With one: only the source's live
 * values, never mixed with the table's (a client cannot tell a configured value from a live one in this
 * shape, so a months-old configured price would pass for today's): its fiat rates from USD, and the USD
 * price of each crypto currency the table lists (the table names which ones a client sees). A currency the
 * source does not price is left out. Cached RATES_TTL_SECONDS in the shared store.
 */
export async function currencyRates(deps: Pick<Deps, "db" | "store" | "sealer" | "config" | "vendors">, env: PublicEnvironment): Promise<CurrencyRate[]> {
  const configured = await listExchangeRates(deps.db);
  const endpoint = await vendorEndpointOf(deps, env, "price source");
  if (!endpoint) return configured.map((r) => ({ name: r.name, symbol: r.symbol, type: r.type, code: r.currency, value: Number(r.rate) }));
  const source = deps.vendors.priceSource(endpoint);
  const crypto = [...new Map(configured.filter((r) => r.type === "crypto").map((r) => [r.symbol, r.name])).entries()];
  // Keyed by the source too: one environment's own source never answers another's (or the operator's) reads.
  const key = `rates:v2:${vendorCacheId(endpoint)}:${createHash("sha256").update(crypto.map(([s]) => s).join(",")).digest("hex").slice(0, 32)}`;
  const hit = await deps.store.get(key);
  if (hit) return JSON.parse(hit) as CurrencyRate[];
  const [fiat, prices] = await Promise.all([source.rates(QUOTE_CURRENCY), source.prices(crypto.map(([s]) => s), QUOTE_CURRENCY)]);
  const rates: CurrencyRate[] = [
    ...Object.entries(fiat)
      .filter(([code]) => /^[A-Z]{3}$/.test(code) && code !== QUOTE_CURRENCY)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([code, value]): CurrencyRate => ({ name: fiatName(QUOTE_CURRENCY), symbol: QUOTE_CURRENCY, type: "fiat", code, value })),
    ...crypto.flatMap(([symbol, name]): CurrencyRate[] => (prices[symbol] === undefined ? [] : [{ name, symbol, type: "crypto", code: QUOTE_CURRENCY, value: prices[symbol] }])),
  ];
  await deps.store.set(key, JSON.stringify(rates), RATES_TTL_SECONDS);
  return rates;
}

