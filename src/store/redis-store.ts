import { createClient } from "redis";
import { ttlToMs, type EphemeralStore, type StoreOptions } from "./contract.js";

function buildClient(url: string, reconnectStrategy: (retries: number, cause: Error) => number | Error) {
  return createClient({
    url,
    // Fail commands at once while disconnected instead of queueing them: a request should get an error
    // (and /healthz a false ping) rather than hang until Redis is back.
    disableOfflineQueue: true,
    socket: { connectTimeout: 5_000, reconnectStrategy },
  });
}
type Client = ReturnType<typeof buildClient>;

/**
 * INCR, then start the window if the key has no TTL yet (first hit, or a counter that lost its TTL), in one
 * script so that no crash between the two commands can leave a counter that never resets.
 */
const incrWindowScript = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

/** How long the first connect may take before createStore fails: long enough for a Redis that is still
 * starting beside us, short enough that a wrong REDIS_URL fails the start visibly. */
const defaultConnectTimeoutMs = 10_000;

/**
 * EphemeralStore over Redis >= 6.2 (GETDEL). Atomicity comes from single commands (SET NX PX, GETDEL) and a
 * Lua script (incrWindow), never from read-then-write in JavaScript, because other replicas share the keys.
 */
export class RedisStore implements EphemeralStore {
  private constructor(
    private readonly client: Client,
    private readonly prefix: string,
  ) {}

  static async connect(url: string, opts: StoreOptions = {}): Promise<RedisStore> {
    let connectedOnce = false;
    const startedAt = Date.now();
    const giveUpAfter = opts.connectTimeoutMs ?? defaultConnectTimeoutMs;
    // Before the first connection, give up after giveUpAfter; afterwards retry forever with backoff.
    const client = buildClient(url, (retries, cause) =>
      !connectedOnce && Date.now() - startedAt >= giveUpAfter ? cause : Math.min(50 * 2 ** retries, 2_000),
    );
    // Without an 'error' listener node-redis rethrows socket errors and crashes the process.
    client.on("error", (err: Error) => {
      if (connectedOnce) opts.onError?.(err);
    });
    try {
      await client.connect();
    } catch (err) {
      client.destroy();
      throw new Error(`cannot connect to Redis at ${redactUrl(url)}: ${(err as Error).message}`);
    }
    connectedOnce = true;
    return new RedisStore(client, opts.keyPrefix ?? "");
  }

  async get(key: string): Promise<string | null> {
    return this.client.get(this.prefix + key);
  }

  async set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    if (ttlSeconds === undefined) await this.client.set(this.prefix + key, value);
    else await this.client.set(this.prefix + key, value, { expiration: { type: "PX", value: ttlToMs(ttlSeconds) } });
  }

  async del(key: string): Promise<void> {
    await this.client.del(this.prefix + key);
  }

  async setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean> {
    const reply = await this.client.set(this.prefix + key, value, {
      condition: "NX",
      expiration: { type: "PX", value: ttlToMs(ttlSeconds) },
    });
    return reply === "OK";
  }

  async take(key: string): Promise<string | null> {
    return this.client.getDel(this.prefix + key);
  }

  async incrWindow(key: string, windowSeconds: number): Promise<{ count: number; resetInMs: number }> {
    const windowMs = ttlToMs(windowSeconds, "windowSeconds");
    const reply = (await this.client.eval(incrWindowScript, {
      keys: [this.prefix + key],
      arguments: [String(windowMs)],
    })) as [number, number];
    return { count: Number(reply[0]), resetInMs: Number(reply[1]) };
  }

  async ping(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("ping timed out")), 2_000);
      });
      return (await Promise.race([this.client.ping(), timeout])) === "PONG";
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    // close() lets pending commands finish; on a broken connection it would wait for a reconnect.
    if (this.client.isReady) await this.client.close();
    else if (this.client.isOpen) this.client.destroy();
  }
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable REDIS_URL)";
  }
}
