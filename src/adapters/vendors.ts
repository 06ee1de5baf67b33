import type { RampSettings } from "../config-ramps.js";
import type { WebhookSettings } from "../config.js";
import type { Vendors } from "../domain/vendors/port.js";
import { createPriceSource } from "./price-source.js";
import { createRampProvider } from "./ramp-provider.js";

/**
 * The vendor protocols' adapters, made per resolved endpoint (the environment's own vendor or the
 * operator's): each call opens its own pinned connection anyway, so there is nothing to keep between calls.
 */
export function createVendors(settings: RampSettings, webhooks: WebhookSettings): Vendors {
  return {
    priceSource: (endpoint) => createPriceSource(endpoint, settings, webhooks),
    rampProvider: (endpoint) => createRampProvider(endpoint, settings, webhooks),
  };
}
