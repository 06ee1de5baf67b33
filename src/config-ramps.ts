import { httpUrl, int } from "./config-values.js";

/**
 * One vendor Sigil calls over its vendor-neutral protocol (src/adapters/price-source.ts, ramp-provider.ts):
 * where it is and the key it signs every request with (HMAC-SHA256, src/adapters/vendor-signing.ts).
 */
export interface VendorAccount {
  /** The vendor's base URL, without a trailing slash; the operator's, so trusted as written (loopback included). */
  url: string;
  /** Sent beside each signature so the vendor knows which of its secrets to check it with. */
  keyId: string;
  /** The shared secret the vendor gave; never sent, only used to sign. */
  secret: string;
}

/**
 * The operator's price source and on-ramp / off-ramp provider, serving every environment that has none of
 * its own (a provider of kind priceSource / rampProvider; src/domain/vendors/endpoint.ts), and the bounds of
 * every call to any vendor.
 */
export interface RampSettings {
  /** SIGIL_PRICE_SOURCE_URL, _KEY_ID, _SECRET: fiat rates and token prices; null when no URL is set. */
  priceSource: VendorAccount | null;
  /** SIGIL_RAMP_PROVIDER_URL, _KEY_ID, _SECRET: on-ramps, off-ramps and card payments; null when no URL is set. */
  rampProvider: VendorAccount | null;
  /** SIGIL_VENDOR_TIMEOUT_MS (default 5000): one vendor call's deadline; past it the answer is 503 provider_unavailable. */
  timeoutMs: number;
  /** SIGIL_VENDOR_MAX_RESPONSE_BYTES (default 262144): a vendor's answer larger than this is refused (503). */
  maxResponseBytes: number;
}

export const DEFAULT_RAMP_SETTINGS: RampSettings = { priceSource: null, rampProvider: null, timeoutMs: 5000, maxResponseBytes: 256 * 1024 };

/** A vendor account from `<prefix>_URL`, `_KEY_ID` and `_SECRET`: a URL without its key id and secret is a start-up error (nothing unsigned is sent). */
function vendorAccount(prefix: string, env: NodeJS.ProcessEnv): VendorAccount | null {
  const url = httpUrl(`${prefix}_URL`, env);
  if (!url) return null;
  const keyId = env[`${prefix}_KEY_ID`]?.trim();
  const secret = env[`${prefix}_SECRET`]?.trim();
  if (!keyId || !secret) throw new Error(`${prefix}_URL is set: ${prefix}_KEY_ID and ${prefix}_SECRET are required too`);
  return { url, keyId, secret };
}

/** The ramp settings of `env` (loadConfig's part for the price source and the ramp provider). */
export function rampSettings(env: NodeJS.ProcessEnv): RampSettings {
  return {
    priceSource: vendorAccount("SIGIL_PRICE_SOURCE", env),
    rampProvider: vendorAccount("SIGIL_RAMP_PROVIDER", env),
    timeoutMs: int("SIGIL_VENDOR_TIMEOUT_MS", DEFAULT_RAMP_SETTINGS.timeoutMs, env),
    maxResponseBytes: int("SIGIL_VENDOR_MAX_RESPONSE_BYTES", DEFAULT_RAMP_SETTINGS.maxResponseBytes, env),
  };
}
