import type { Interceptor } from "@connectrpc/connect";
import { DomainError, toConnectError } from "../../errors.js";
import type { EphemeralStore } from "../../store/store.js";
import { CLIENT_IP_HEADER, clientIpKey, principalKey } from "../context.js";

const WINDOW_SECONDS = 60;

/**
 * Fixed one-minute windows per API token, or per client address for anonymous calls, counted in the
 * shared store so every replica sees the same count. Over the limit: 429 with Retry-After.
 */
export function rateLimitInterceptor(store: EphemeralStore, perMinute: number): Interceptor {
  return (next) => async (req) => {
    if (perMinute === 0) return next(req);
    const p = req.contextValues.get(principalKey);
    const ip = req.contextValues.get(clientIpKey) || req.header.get(CLIENT_IP_HEADER) || "unknown";
    const key = p.kind === "api_token" ? `ratelimit:token:${p.tokenId}` : `ratelimit:ip:${ip}`;
    const { count, resetInMs } = await store.incrWindow(key, WINDOW_SECONDS);
    if (count > perMinute) {
      const retryAfter = String(Math.max(1, Math.ceil(resetInMs / 1000)));
      throw toConnectError(new DomainError("rate_limited", "rate_limited", "too many requests, retry later"), { "retry-after": retryAfter });
    }
    return next(req);
  };
}
