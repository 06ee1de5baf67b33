import { tokenCacheKey } from "../auth/api-token-auth.js";
import { forgetPrincipals } from "../auth/principal-cache.js";
import type { Deps } from "../deps.js";

/**
 * Drops cached principals so that a change to tokens, roles or tenants takes effect at once on this replica
 * and within EPOCH_CHECK_MS (src/domain/auth/principal-cache.ts) on every other one. Call after the
 * transaction committed (a rolled-back change must not matter, and a drop before commit could be refilled
 * from the old rows).
 */
export async function dropCachedPrincipals(deps: Pick<Deps, "store">, hashes: readonly Buffer[]): Promise<void> {
  for (const h of hashes) await deps.store.del(tokenCacheKey(h));
  await forgetPrincipals(deps.store, hashes.map((h) => h.toString("hex")));
}
