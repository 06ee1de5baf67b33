import type { SdkEventLimits } from "../../config.js";
import { rateLimited } from "../../errors.js";
import type { EphemeralStore } from "../../store/store.js";

const WINDOW_SECONDS = 60;

/**
 * The SDK's publish-events operation is public: knowing an environment id is enough to call it. Fixed
 * one-minute windows in the shared store bound it per client address (one caller cannot flood) and per
 * environment (many addresses together cannot fill one environment's event log). The address is the
 * socket's, or a trusted proxy's forwarded one (SIGIL_TRUSTED_PROXIES), never a client's own header. A limit of 0 turns that bound off.
 * Over a bound: 429 rate_limited naming it (scope "address" or "environment").
 */
export async function checkPublishLimits(store: EphemeralStore, limits: SdkEventLimits, environmentId: string, clientAddress: string): Promise<void> {
  const bounds = [
    {
      scope: "address",
      key: `ratelimit:sdk-events:ip:${clientAddress || "unknown"}`,
      limit: limits.perAddressPerMinute,
      setting: "SIGIL_SDK_EVENTS_PER_ADDRESS_PER_MINUTE",
    },
    {
      scope: "environment",
      key: `ratelimit:sdk-events:env:${environmentId}`,
      limit: limits.perEnvironmentPerMinute,
      setting: "SIGIL_SDK_EVENTS_PER_ENVIRONMENT_PER_MINUTE",
    },
  ];
  for (const b of bounds) {
    if (b.limit === 0) continue;
    const { count, resetInMs } = await store.incrWindow(b.key, WINDOW_SECONDS);
    if (count > b.limit) throw rateLimited("rate_limited", `too many event publications from this ${b.scope}`, { ...b, windowSeconds: WINDOW_SECONDS }, resetInMs);
  }
}
