import type { PriceSource } from "../rates/source.js";
import type { RampProvider } from "../ramps/provider.js";
import type { Vendor } from "../rates/errors.js";

/**
 * One vendor Sigil calls over its vendor-neutral protocol, as resolved for a request: where it is, the key
 * it signs with, and whose it is. An environment's own vendor (its provider of the kind) is the tenant's
 * word, so every connection to it passes the service's destination policy; the operator's is trusted.
 */
export interface VendorEndpoint {
  /** The base URL, without a trailing slash. */
  url: string;
  keyId: string;
  secret: string;
  /** True for the operator's vendor (SIGIL_PRICE_SOURCE_URL...): reached as written, loopback included. */
  trusted: boolean;
  /** The environment the call is made for: a live one reaches only public https vendors of its own. */
  environmentName: "live" | "sandbox";
}

/** The adapters of the vendor protocols, made for one endpoint (src/adapters/price-source.ts, ramp-provider.ts). */
export interface Vendors {
  priceSource(endpoint: VendorEndpoint): PriceSource;
  rampProvider(endpoint: VendorEndpoint): RampProvider;
}

/** The provider kind an environment configures each vendor with (proto/sigil/providers/v0/providers_service.proto). */
export const VENDOR_PROVIDER_KINDS = { "price source": "priceSource", "ramp provider": "rampProvider" } as const satisfies Record<Vendor, string>;
