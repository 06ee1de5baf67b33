import { randomUUID } from "node:crypto";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "../../src/store/redis-store.js";
import { createStore } from "../../src/store/store.js";
import { testEnv } from "../setup/env.js";
import { runStoreContract } from "./store-contract.js";

// One prefix per file run: several runs (or CI and a developer) may share one Redis.
const filePrefix = `test:${randomUUID()}:`;
const { redisUrl } = testEnv();

runStoreContract("redis", (opts) => createStore(redisUrl, { keyPrefix: filePrefix + opts.keyPrefix }));

describe("RedisStore specifics", () => {
  const raw = createClient({ url: redisUrl });
  beforeAll(async () => {
    await raw.connect();
  });
  afterAll(async () => {
    // Leave nothing behind in a shared Redis.
    for await (const keys of raw.scanIterator({ MATCH: `${filePrefix}*`, COUNT: 500 })) {
      if (keys.length) await raw.del(keys);
    }
    raw.destroy();
  });

  it("createStore with a URL gives a RedisStore", async () => {
    const store = await createStore(redisUrl, { keyPrefix: `${filePrefix}kind:` });
    try {
      expect(store).toBeInstanceOf(RedisStore);
    } finally {
      await store.close();
    }
  });

  it("stores under the prefix with the TTL in Redis itself", async () => {
    const store = await createStore(redisUrl, { keyPrefix: `${filePrefix}raw:` });
    try {
      await store.set("k", "v", 30);
      expect(await raw.get(`${filePrefix}raw:k`)).toBe("v");
      const pttl = await raw.pTTL(`${filePrefix}raw:k`);
      expect(pttl).toBeGreaterThan(25_000);
      expect(pttl).toBeLessThanOrEqual(30_000);
      await store.incrWindow("w", 10);
      expect(await raw.pTTL(`${filePrefix}raw:w`)).toBeGreaterThan(5_000);
    } finally {
      await store.close();
    }
  });

  it("shares state between two clients, as replicas do", async () => {
    const a = await createStore(redisUrl, { keyPrefix: `${filePrefix}replicas:` });
    const b = await createStore(redisUrl, { keyPrefix: `${filePrefix}replicas:` });
    try {
      await a.set("code", "42", 30);
      const taken = await Promise.all([a.take("code"), b.take("code"), a.take("code"), b.take("code")]);
      expect(taken.filter((v) => v !== null)).toEqual(["42"]);
      expect((await a.incrWindow("rl", 60)).count).toBe(1);
      expect((await b.incrWindow("rl", 60)).count).toBe(2);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("gives a counter that lost its TTL a window again", async () => {
    const store = await createStore(redisUrl, { keyPrefix: `${filePrefix}nottl:` });
    try {
      await raw.set(`${filePrefix}nottl:rl`, "7");
      const hit = await store.incrWindow("rl", 10);
      expect(hit.count).toBe(8);
      expect(hit.resetInMs).toBeGreaterThan(5_000);
      expect(await raw.pTTL(`${filePrefix}nottl:rl`)).toBeGreaterThan(5_000);
    } finally {
      await store.close();
    }
  });

  it("fails clearly when Redis cannot be reached", async () => {
    const started = Date.now();
    await expect(createStore("redis://127.0.0.1:1", { connectTimeoutMs: 500 })).rejects.toThrow(
      /cannot connect to Redis at redis:\/\/127\.0\.0\.1:1/,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
