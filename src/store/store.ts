import type { EphemeralStore, StoreOptions } from "./contract.js";

export type { EphemeralStore, StoreOptions } from "./contract.js";

/** Redis at `redisUrl`, or the in-process store when it is undefined (the embedded default). */
export async function createStore(redisUrl: string | undefined, opts: StoreOptions = {}): Promise<EphemeralStore> {
  if (redisUrl) {
    const { RedisStore } = await import("./redis-store.js");
    return RedisStore.connect(redisUrl, opts);
  }
  const { MemoryStore } = await import("./memory-store.js");
  return new MemoryStore(opts);
}
