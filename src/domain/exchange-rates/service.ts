import { listExchangeRates as listRates } from "../../db/repositories/exchange-rates.js";
import type { Deps } from "../deps.js";

/**
 * Exchange rates come from the configured table (seeded by migration 008, source "configured"): nothing is
 * fetched from outside and nothing is computed at request time, so a rate is only as fresh as its updatedAt.
 */
export function listExchangeRates(deps: Deps) {
  return listRates(deps.db);
}
