import type { Queryable } from "../db.js";

/** Configured rates: global reference data (no tenant column), only read by requests. */
export interface ExchangeRateRecord {
  symbol: string;
  /** The priced currency's name and kind. */
  name: string;
  type: "fiat" | "crypto";
  currency: string;
  /** Decimal string exactly as stored (numeric, trailing zeros trimmed). */
  rate: string;
  source: string;
  updatedAt: Date;
}

export async function listExchangeRates(q: Queryable): Promise<ExchangeRateRecord[]> {
  const rows = await q.any(
    // trim_scale drops the zeros numeric(38,18) pads with: 3000.000000000000000000 -> 3000.
    "SELECT symbol, name, type, currency, trim_scale(rate)::text AS rate, source, updated_at FROM exchange_rates ORDER BY symbol, currency",
  );
  return rows.map((r) => ({ symbol: r.symbol, name: r.name, type: r.type, currency: r.currency, rate: r.rate, source: r.source, updatedAt: r.updated_at }));
}
