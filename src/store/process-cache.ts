/**
 * What one process keeps of values it loads (from Postgres) for a short time: each key's value for `ttlMs`,
 * loads of one key in flight shared, a failed load not kept, and past `maxEntries` the oldest entry making
 * room. For what every api process may hold a little stale (each use says how stale, and why that is
 * fine); state that another replica must see at once lives in the shared store instead.
 */
export class ProcessCache<V> {
  private readonly entries = new Map<string, { at: number; value: Promise<V> }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, load: (key: string) => Promise<V>): Promise<V> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const value = load(key);
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { at: now, value });
    value.catch(() => this.forgetIf(key, value));
    return value;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  /** Forgets the key only while `value` is still its entry (a newer load stays). */
  forgetIf(key: string, value: Promise<V>): void {
    if (this.entries.get(key)?.value === value) this.entries.delete(key);
  }
}
