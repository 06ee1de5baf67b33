import { ttlToMs, type EphemeralStore, type StoreOptions } from "./contract.js";

interface Entry {
  value: string;
  /** Epoch ms; undefined = never expires. */
  expiresAt: number | undefined;
}

/**
 * The in-process twin of RedisStore. Every method runs to completion without awaiting in between, so each
 * one is atomic with respect to the others, as a Redis command is. Expired entries are dropped when read
 * and by a sweep on an unref'd timer (it never keeps the process alive).
 */
export class MemoryStore implements EphemeralStore {
  private readonly entries = new Map<string, Entry>();
  private readonly prefix: string;
  private sweeper: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(opts: StoreOptions = {}, sweepEveryMs = 30_000) {
    this.prefix = opts.keyPrefix ?? "";
    this.sweeper = setInterval(() => this.sweep(), sweepEveryMs);
    this.sweeper.unref();
  }

  /** Entries held, expired ones not yet swept included (tests use it to see the sweep work). */
  entryCount(): number {
    return this.entries.size;
  }

  async get(key: string): Promise<string | null> {
    return this.live(key)?.value ?? null;
  }

  async set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    const expiresAt = ttlSeconds === undefined ? undefined : Date.now() + ttlToMs(ttlSeconds);
    this.open().set(this.prefix + key, { value, expiresAt });
  }

  async del(key: string): Promise<void> {
    this.open().delete(this.prefix + key);
  }

  async setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean> {
    const ms = ttlToMs(ttlSeconds);
    if (this.live(key)) return false;
    this.open().set(this.prefix + key, { value, expiresAt: Date.now() + ms });
    return true;
  }

  async take(key: string): Promise<string | null> {
    const entry = this.live(key);
    if (!entry) return null;
    this.entries.delete(this.prefix + key);
    return entry.value;
  }

  async incrWindow(key: string, windowSeconds: number): Promise<{ count: number; resetInMs: number }> {
    const ms = ttlToMs(windowSeconds, "windowSeconds");
    const now = Date.now();
    const entry = this.live(key);
    if (!entry) {
      this.open().set(this.prefix + key, { value: "1", expiresAt: now + ms });
      return { count: 1, resetInMs: ms };
    }
    const count = Number(entry.value) + 1;
    if (!Number.isSafeInteger(count)) throw new Error(`incrWindow: value at ${key} is not a counter`);
    entry.value = String(count);
    // A counter written by set() without TTL gets the window now, as the Redis script does.
    entry.expiresAt ??= now + ms;
    return { count, resetInMs: entry.expiresAt - now };
  }

  async ping(): Promise<boolean> {
    return !this.closed;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.entries.clear();
  }

  private open(): Map<string, Entry> {
    if (this.closed) throw new Error("the store is closed");
    return this.entries;
  }

  private live(key: string): Entry | undefined {
    const full = this.prefix + key;
    const entry = this.open().get(full);
    if (!entry) return undefined;
    if (entry.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
      this.entries.delete(full);
      return undefined;
    }
    return entry;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt !== undefined && entry.expiresAt <= now) this.entries.delete(key);
    }
  }
}
