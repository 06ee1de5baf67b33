import type { Deps } from "../domain/deps.js";
import { originAllowedBy } from "../domain/origins/origin.js";
import { originPatterns } from "../domain/origins/service.js";
import { ProcessCache } from "../store/process-cache.js";

/** Environments whose origins one api process keeps at most; past it the oldest entry makes room. */
const MAX_CACHED_ENVIRONMENTS = 10_000;

/** The environment id of a path under /api/v0/sdk/{environmentId}/ (undefined elsewhere). */
const SDK_PATH = /^\/api\/v0\/sdk\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\/|$)/;

export function sdkEnvironmentOf(path: string): string | undefined {
  return SDK_PATH.exec(path)?.[1];
}

/** What CORS may answer a page on `origin`: any origin (`*`), this one (echoed), or none. */
export type OriginVerdict = "any" | "this" | "none";

/**
 * Decides the CORS answer of the SDK surface per environment: an environment with registered origins
 * admits only those; one without admits any (as the management surface does). Each api process keeps an
 * environment's origins for `ttlMs` (one Postgres read per environment and TTL, however many requests),
 * so a change reaches every process within the TTL; lookups of one environment in flight are shared.
 * A failed lookup admits no origin (the request itself still runs and answers its own error).
 */
export function createSdkOriginCheck(deps: Pick<Deps, "db" | "log">, ttlMs: number) {
  const cache = new ProcessCache<ReadonlySet<string>>(ttlMs, MAX_CACHED_ENVIRONMENTS);
  const patternsOf = (environmentId: string) => cache.get(environmentId, (id) => originPatterns(deps, id));

  return async function verdict(environmentId: string, origin: string): Promise<OriginVerdict> {
    try {
      const patterns = await patternsOf(environmentId);
      if (patterns.size === 0) return "any";
      return originAllowedBy(patterns, origin) ? "this" : "none";
    } catch (err) {
      deps.log.warn("cors origin lookup failed", { environmentId, error: err instanceof Error ? err.message : String(err) });
      return "none";
    }
  };
}
