import { tokenCacheKey } from "../auth/api-token-auth.js";
import type { Deps } from "../deps.js";

/**
 * Drops cached principals so that a change to tokens, roles or tenants takes effect at once on every
 * replica. Call after the transaction committed (a rolled-back change must not matter, and a drop before
 * commit could be refilled from the old rows).
 */
export async function dropCachedPrincipals(deps: Pick<Deps, "store">, hashes: readonly Buffer[]): Promise<void> {
  for (const h of hashes) await deps.store.del(tokenCacheKey(h));
}
