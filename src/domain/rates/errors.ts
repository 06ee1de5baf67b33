import { DomainError, unprocessable } from "../../errors.js";

/** Seconds a client is told to wait when a vendor failed and said nothing itself: a vendor down is rarely back sooner. */
export const VENDOR_RETRY_AFTER_SECONDS = 5;
/** The most a vendor's own Retry-After may ask of our clients; a longer wait is theirs to decide again. */
const MAX_RETRY_AFTER_SECONDS = 60;

/** The vendors Sigil calls, as the errors name them. */
export type Vendor = "price source" | "ramp provider";

/**
 * 422: neither the environment (its provider of the kind) nor the operator (SIGIL_PRICE_SOURCE_URL /
 * SIGIL_RAMP_PROVIDER_URL) configured such a vendor. Nothing is made up instead.
 */
export const vendorNotConfigured = (vendor: Vendor) => unprocessable("not_configured", `no ${vendor} is configured for this environment`, { vendor });

/** 422: the environment's own vendor URL is not a destination the service may reach (nothing was sent). */
export const vendorUrlRefused = (vendor: Vendor, reason: string, host: string) =>
  unprocessable("not_configured", `the environment's ${vendor} URL is refused: ${reason}`, { vendor, host });

/**
 * 503 with Retry-After: the vendor failed, timed out, answered more than the service reads, something it could
 * not read, or refused Sigil's own signature (the operator's key, which the caller cannot fix). Its own
 * Retry-After is passed on, bounded.
 */
export const providerUnavailable = (vendor: Vendor, reason: string, retryAfterSeconds?: number) =>
  new DomainError("unavailable", "provider_unavailable", `the ${vendor} did not answer usably (${reason}), retry later`, {
    vendor,
    retryAfterSeconds: Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, retryAfterSeconds ?? VENDOR_RETRY_AFTER_SECONDS)),
  });

/** 422: the vendor refused what the caller asked (an amount or currency it does not take), with its reason. */
export const providerRejected = (vendor: Vendor, reason: string) => unprocessable("provider_rejected", `the ${vendor} refused the request: ${reason}`, { vendor });
