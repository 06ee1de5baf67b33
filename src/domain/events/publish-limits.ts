import type { SdkEventLimits } from "../../config.js";
import type { EphemeralStore } from "../../store/store.js";

const WINDOW_SECONDS = 60;

/** Which bound a publish request hit, and when its window ends. */
export interface PublishLimitHit {
  scope: "address" | "environment";
  retryAfterSeconds: number;
}

/**
 * The SDK's publish-events operation is public: knowing an environment id is enough to call it. Fixed
 * one-minute windows in the shared store bound it per client address (one caller cannot flood) and per
 * environment (many addresses together cannot fill one environment's event log). The address is the
 * socket's, or a trusted proxy's forwarded one (SIGIL_TRUSTED_PROXIES), never a client's own header. A limit of 0 turns that bound off.
 */
export async function checkPublishLimits(
  store: EphemeralStore,
  limits: SdkEventLimits,
  environmentId: string,
  clientAddress: string,
): Promise<PublishLimitHit | null> {
  const bounds = [
    { scope: "address" as const, key: `ratelimit:sdk-events:ip:${clientAddress || "unknown"}`, limit: limits.perAddressPerMinute },
    { scope: "environment" as const, key: `ratelimit:sdk-events:env:${environmentId}`, limit: limits.perEnvironmentPerMinute },
  ];
  for (const b of bounds) {
    if (b.limit === 0) continue;
    const { count, resetInMs } = await store.incrWindow(b.key, WINDOW_SECONDS);
    if (count > b.limit) return { scope: b.scope, retryAfterSeconds: Math.max(1, Math.ceil(resetInMs / 1000)) };
  }
  return null;
}
