import type { RampSettings } from "../config-ramps.js";
import type { WebhookSettings } from "../config.js";
import type { VendorEndpoint } from "../domain/vendors/port.js";
import { providerUnavailable } from "../domain/rates/errors.js";
import type { PriceSource } from "../domain/rates/source.js";
import { createVendorHttp, vendorDecimal, vendorObject } from "./vendor-http.js";

/** Ids per price request: a balance read asks a few dozen at most; more would make the query string unwieldy. */
const MAX_IDS_PER_CALL = 100;

/** The decimal values of a `{ <key>: "<decimal>" }` object; entries that are not a non-negative decimal are left out, never guessed. */
function decimals(field: unknown, what: string): Record<string, number> {
  if (!field || typeof field !== "object" || Array.isArray(field)) throw providerUnavailable("price source", `the answer has no ${what} object`);
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(field)) {
    const n = vendorDecimal(v);
    if (n !== null && n > 0) out[k] = n;
  }
  return out;
}

/**
 * The price source's vendor-neutral protocol (every request signed, src/adapters/vendor-signing.ts):
 * - `GET {base}/v1/rates?base=USD` -> `{ "rates": { "EUR": "0.92", ... }, "asOf": "<RFC 3339>" }`
 * - `GET {base}/v1/prices?ids=ETH,EVM:1:0xA0b8...&currency=USD` -> `{ "prices": { "ETH": "3012.5", ... }, "asOf": ... }`
 * Values are decimal strings (or JSON numbers); an id or currency the source does not know is left out of its answer.
 */
export function createPriceSource(account: VendorEndpoint, settings: RampSettings, webhooks: WebhookSettings): PriceSource {
  const call = createVendorHttp("price source", account, settings, webhooks);
  const ok = (status: number) => {
    if (status !== 200) throw providerUnavailable("price source", `it answered HTTP ${status}`);
  };
  return {
    async rates(base) {
      const res = await call({ method: "GET", path: "/v1/rates", query: { base } });
      ok(res.status);
      return decimals(vendorObject("price source", res.json).rates, "rates");
    },
    async prices(ids, currency) {
      const out: Record<string, number> = {};
      for (let i = 0; i < ids.length; i += MAX_IDS_PER_CALL) {
        const res = await call({ method: "GET", path: "/v1/prices", query: { ids: ids.slice(i, i + MAX_IDS_PER_CALL).join(","), currency } });
        ok(res.status);
        const prices = decimals(vendorObject("price source", res.json).prices, "prices");
        // Only what was asked: a source that answers more does not fill other ids' entries.
        for (const id of ids.slice(i, i + MAX_IDS_PER_CALL)) if (Object.hasOwn(prices, id)) out[id] = prices[id]!;
      }
      return out;
    },
  };
}
