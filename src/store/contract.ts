/**
 * Short-lived shared state: one-time codes, nonces, OAuth state, rate-limit windows, small caches.
 * Backed by Redis when REDIS_URL is set (every replica sees the same state); otherwise by an in-process
 * twin with the same semantics, which is only correct for a single process (`npm start`).
 *
 * Either may forget anything at any time (a restart empties the in-process store; a Redis may run without
 * persistence, evict keys or be flushed), so losing a key must never open a door: what is kept here is a
 * challenge whose loss only fails its flow (a nonce, a code, an OAuth state), a counter, or a cache of what
 * Postgres decides (a session's revocation: src/domain/sessions/revocation.ts). A mark that must stop a
 * second use of a credential that proves itself lives in Postgres (src/domain/spent-credentials).
 *
 * The contract both backends implement (store.ts picks one). TTLs are in seconds and may be fractional
 * (stored with millisecond precision); a TTL must be > 0.
 */
export interface EphemeralStore {
  get(key: string): Promise<string | null>;
  /** Without ttlSeconds the value never expires. Overwrites any previous value and TTL. */
  set(key: string, value: string, ttlSeconds?: number): Promise<void>;
  del(key: string): Promise<void>;
  /** Atomically sets only if absent; true when it was set. */
  setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean>;
  /** Atomically reads and deletes (one-time codes, OAuth state). */
  take(key: string): Promise<string | null>;
  /** Fixed-window counter: increments, starts the window's TTL on the first hit. */
  incrWindow(key: string, windowSeconds: number): Promise<{ count: number; resetInMs: number }>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** Prepended to every key, so that several apps (or test files) can share one Redis. */
  keyPrefix?: string;
  /** Redis connection errors after the first connect (the client reconnects by itself). */
  onError?: (err: Error) => void;
  /** How long createStore keeps retrying the first Redis connection before failing; default 10 s. */
  connectTimeoutMs?: number;
}

/** Milliseconds for a TTL in seconds; rejects what Redis would reject, in both implementations alike. */
export function ttlToMs(ttlSeconds: number, what = "ttlSeconds"): number {
  const ms = Math.round(ttlSeconds * 1000);
  if (!Number.isFinite(ttlSeconds) || ms <= 0) throw new RangeError(`${what} must be a positive number of seconds, got ${ttlSeconds}`);
  return ms;
}
