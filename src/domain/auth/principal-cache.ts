/**
 * A short in-process cache of token principals in front of the shared store's, so that a call with a known
 * token costs neither a store round trip nor a JSON parse.
 *
 * Revocation stays bounded: every drop of cached principals (src/domain/tokens/cache.ts: token deleted, role
 * or member changed, tenant deleted) removes the entries of this process at once and writes a new value
 * under one shared "epoch" key. Each process reads that key at most every EPOCH_CHECK_MS (one store GET for
 * all calls of that interval, not one per call) and trusts its entries only while the epoch they were filled
 * under is still the current one. So a revoked token stops at once on the replica that revoked it and within
 * EPOCH_CHECK_MS plus one store round trip on every other replica; LOCAL_TTL_MS bounds an entry's life
 * whatever happens to the epoch key. A failed epoch read empties the cache (calls go to the store, as before).
 */
import { randomUUID } from "node:crypto";
import type { EphemeralStore } from "../../store/store.js";
import type { TokenPrincipal } from "./principal.js";

/** How stale another replica's revocation can be seen here (revocation elsewhere is seen in under a second). */
export const EPOCH_CHECK_MS = 500;
/** An entry's longest life, even with an unchanged epoch. */
const LOCAL_TTL_MS = 5_000;
/** A bound on memory: past it the cache starts over. */
const MAX_ENTRIES = 10_000;
const EPOCH_KEY = "apitoken:epoch";

interface Entry {
  principal: TokenPrincipal;
  store: EphemeralStore;
  epoch: string | null;
  expiresAt: number;
}

interface EpochState {
  epoch: string | null;
  checkedAt: number;
  pending: Promise<void> | undefined;
}

/** Keyed by the token hash (hex), never by the raw token. */
const entries = new Map<string, Entry>();
/** One epoch per store: apps in one process (tests) each watch their own. */
const epochs = new WeakMap<EphemeralStore, EpochState>();

function stateOf(store: EphemeralStore): EpochState {
  let s = epochs.get(store);
  if (!s) {
    s = { epoch: null, checkedAt: -Infinity, pending: undefined };
    epochs.set(store, s);
  }
  return s;
}

/** Re-reads the shared epoch when the last read is older than EPOCH_CHECK_MS; one read in flight per store. */
async function currentEpoch(store: EphemeralStore): Promise<string | null | undefined> {
  const s = stateOf(store);
  if (performance.now() - s.checkedAt >= EPOCH_CHECK_MS) {
    s.pending ??= store
      .get(EPOCH_KEY)
      .then(
        (epoch) => {
          s.epoch = epoch;
          s.checkedAt = performance.now();
        },
        () => {
          // Unknown epoch: nothing cached may be trusted; the next call reads again.
          s.checkedAt = -Infinity;
          for (const [k, e] of entries) if (e.store === store) entries.delete(k);
        },
      )
      .finally(() => {
        s.pending = undefined;
      });
    await s.pending;
    if (s.checkedAt === -Infinity) return undefined;
  }
  return s.epoch;
}

/** The cached principal of a token hash, if it is still trusted; otherwise undefined. */
export async function cachedPrincipal(store: EphemeralStore, hashHex: string): Promise<{ principal?: TokenPrincipal; epoch: string | null | undefined }> {
  const epoch = await currentEpoch(store);
  const e = entries.get(hashHex);
  if (!e || e.store !== store) return { epoch };
  if (epoch === undefined || e.epoch !== epoch || performance.now() >= e.expiresAt) {
    entries.delete(hashHex);
    return { epoch };
  }
  return { principal: e.principal, epoch };
}

/**
 * Keeps a principal read from the store or the database. `epoch` is the one seen before the read: when the
 * epoch moved meanwhile (a revocation raced the read) the principal is not kept.
 */
export function keepPrincipal(store: EphemeralStore, hashHex: string, principal: TokenPrincipal, epoch: string | null | undefined): void {
  if (epoch === undefined || stateOf(store).epoch !== epoch) return;
  if (entries.size >= MAX_ENTRIES) entries.clear();
  entries.set(hashHex, { principal, store, epoch, expiresAt: performance.now() + LOCAL_TTL_MS });
}

/** Forgets principals here at once and tells every other process (through the store) to stop trusting its own. */
export async function forgetPrincipals(store: EphemeralStore, hashHexes: readonly string[]): Promise<void> {
  for (const h of hashHexes) entries.delete(h);
  await store.set(EPOCH_KEY, randomUUID());
  // This process's next call re-reads the epoch rather than waiting out the interval.
  stateOf(store).checkedAt = -Infinity;
}
