import type { Interceptor } from "@connectrpc/connect";
import type { SdkRateLimits } from "../../config.js";
import { RateLimit } from "../../gen/sigil/options/v0/options_pb.js";
import { rateLimited, type RateBound } from "../../errors.js";
import type { EphemeralStore } from "../../store/store.js";
import { CLIENT_IP_HEADER, clientIpKey, principalKey } from "../context.js";
import { methodRules } from "../method-options.js";
import { tenantPlanOf } from "../tenant-rules.js";

/** A fixed window: the bound, the store key it counts under, and what the 429 calls the calls. */
interface Window extends RateBound {
  key: string;
  what: string;
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
      const { count, resetInMs } = await store.incrWindow(w.key, w.windowSeconds);
      if (count > w.limit) throw rateLimited("rate_limited", w.what, w, resetInMs);
    }
    return next(req);
  };
}

function windowsOf(method: Parameters<typeof methodRules>[0], tokenId: string | null, ip: string, perMinute: number, sdk: SdkRateLimits): Window[] {
  if (tenantPlanOf(method).scope !== "public") {
    const management = { limit: perMinute, windowSeconds: 60, setting: "SIGIL_RATE_LIMIT_PER_MINUTE" };
    return [
      tokenId
        ? { ...management, key: `ratelimit:token:${tokenId}`, scope: "token", what: "too many requests with this API token" }
        : { ...management, key: `ratelimit:ip:${ip}`, scope: "address", what: "too many requests from this address" },
    ];
  }
  const windows: Window[] = [
    {
      key: `ratelimit:sdk:${ip}`,
      scope: "address",
      limit: sdk.perAddressPer10s,
      windowSeconds: 10,
      setting: "SIGIL_SDK_RATE_LIMIT_PER_10S",
      what: "too many SDK requests from this address",
    },
  ];
  if (methodRules(method).rateLimit === RateLimit.SIGN_IN)
    windows.push({
      key: `ratelimit:sign-in:${ip}`,
      scope: "address",
      limit: sdk.signInPerAddressPerMinute,
      windowSeconds: 60,
      setting: "SIGIL_SIGN_IN_RATE_LIMIT_PER_MINUTE",
      what: "too many sign-in requests from this address",
    });
  return windows;
}
