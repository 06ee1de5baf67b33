import type { Interceptor } from "@connectrpc/connect";
import type { SdkRateLimits } from "../../config.js";
import { RateLimit } from "../../gen/sigil/options/v0/options_pb.js";
import { DomainError, toConnectError } from "../../errors.js";
import type { EphemeralStore } from "../../store/store.js";
import { CLIENT_IP_HEADER, clientIpKey, principalKey } from "../context.js";
import { methodRules } from "../method-options.js";
import { tenantPlanOf } from "../tenant-rules.js";

/** A fixed window: how many calls per how many seconds, under which key prefix. */
interface Window {
  key: string;
  limit: number;
  seconds: number;
}

/**
 * Fixed windows counted in the shared store, so every replica sees the same count; over a limit: 429 with
 * Retry-After. Management calls count per API token (per minute). SDK calls (the public tenant: every
 * `/sdk/{environmentId}` operation, signed in or not) count per client address, and sign-in calls
 * (declared `rate_limit: RATE_LIMIT_SIGN_IN`) also against a tighter per-minute window.
 */
export function rateLimitInterceptor(store: EphemeralStore, perMinute: number, sdk: SdkRateLimits): Interceptor {
  return (next) => async (req) => {
    if (!req.service.typeName.startsWith("sigil.")) return next(req);
    const p = req.contextValues.get(principalKey);
    const ip = req.contextValues.get(clientIpKey) || req.header.get(CLIENT_IP_HEADER) || "unknown";
    for (const w of windowsOf(req.method, p.kind === "api_token" ? p.tokenId : null, ip, perMinute, sdk)) {
      if (w.limit === 0) continue;
      const { count, resetInMs } = await store.incrWindow(w.key, w.seconds);
      if (count > w.limit) {
        const retryAfter = String(Math.max(1, Math.ceil(resetInMs / 1000)));
        throw toConnectError(new DomainError("rate_limited", "rate_limited", "too many requests, retry later"), { "retry-after": retryAfter });
      }
    }
    return next(req);
  };
}

function windowsOf(method: Parameters<typeof methodRules>[0], tokenId: string | null, ip: string, perMinute: number, sdk: SdkRateLimits): Window[] {
  if (tenantPlanOf(method).scope !== "public")
    return [{ key: tokenId ? `ratelimit:token:${tokenId}` : `ratelimit:ip:${ip}`, limit: perMinute, seconds: 60 }];
  const windows: Window[] = [{ key: `ratelimit:sdk:${ip}`, limit: sdk.perAddressPer10s, seconds: 10 }];
  if (methodRules(method).rateLimit === RateLimit.SIGN_IN) windows.push({ key: `ratelimit:sign-in:${ip}`, limit: sdk.signInPerAddressPerMinute, seconds: 60 });
  return windows;
}
