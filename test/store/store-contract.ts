import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { EphemeralStore } from "../../src/store/store.js";

/** Makes a fresh store; the contract passes a key prefix unique to each test so tests never share keys. */
export type StoreFactory = (opts: { keyPrefix: string }) => Promise<EphemeralStore>;

/**
 * Lets `ms` of the store's time pass. Redis keeps time on its server, so for it this is waiting; the
 * in-process store reads the process clock and timers, which a test can move on at once (fake timers).
 */
export type PassTime = (ms: number) => Promise<void>;

/**
 * The behaviour every EphemeralStore must have, run against each implementation so that the in-process
 * twin cannot drift from Redis. Timing: "expired" checks let time pass well past a short TTL (robust under
 * load); "still there" checks use long TTLs, never a race against a short one.
 */
export function runStoreContract(name: string, factory: StoreFactory, passTime: PassTime = (ms) => sleep(ms)): void {
  describe(`EphemeralStore contract: ${name}`, () => {
    const opened: EphemeralStore[] = [];
    let seq = 0;
    const fresh = async (): Promise<EphemeralStore> => {
      const store = await factory({ keyPrefix: `c${++seq}:` });
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close().catch(() => undefined)));
    });

    describe("get / set / del", () => {
      it("returns null for a missing key and the value after set", async () => {
        const store = await fresh();
        expect(await store.get("k")).toBeNull();
        await store.set("k", "v1");
        expect(await store.get("k")).toBe("v1");
        await store.set("k", "v2");
        expect(await store.get("k")).toBe("v2");
      });

      it("del removes the key and is a no-op for a missing one", async () => {
        const store = await fresh();
        await store.set("k", "v");
        await store.del("k");
        expect(await store.get("k")).toBeNull();
        await expect(store.del("never-set")).resolves.toBeUndefined();
      });

      it("a value set with a TTL expires, one without stays", async () => {
        const store = await fresh();
        await store.set("short", "x", 0.2);
        await store.set("forever", "y");
        await store.set("long", "z", 30);
        await passTime(450);
        expect(await store.get("short")).toBeNull();
        expect(await store.get("forever")).toBe("y");
        expect(await store.get("long")).toBe("z");
      });

      it("set without a TTL clears a previous TTL", async () => {
        const store = await fresh();
        await store.set("k", "a", 0.2);
        await store.set("k", "b");
        await passTime(450);
        expect(await store.get("k")).toBe("b");
      });

      it("rejects a TTL that is not positive", async () => {
        const store = await fresh();
        await expect(store.set("k", "v", 0)).rejects.toThrow(RangeError);
        await expect(store.set("k", "v", -1)).rejects.toThrow(RangeError);
        await expect(store.setIfAbsent("k", "v", Number.NaN)).rejects.toThrow(RangeError);
        await expect(store.incrWindow("k", 0)).rejects.toThrow(RangeError);
        expect(await store.get("k")).toBeNull();
      });

      it("keeps stores with different key prefixes apart", async () => {
        const a = await fresh();
        const b = await fresh();
        await a.set("shared-name", "from-a");
        expect(await b.get("shared-name")).toBeNull();
        expect(await b.take("shared-name")).toBeNull();
        expect(await a.get("shared-name")).toBe("from-a");
      });
    });

    describe("setIfAbsent", () => {
      it("sets only when absent and keeps the first value", async () => {
        const store = await fresh();
        expect(await store.setIfAbsent("k", "first", 30)).toBe(true);
        expect(await store.setIfAbsent("k", "second", 30)).toBe(false);
        expect(await store.get("k")).toBe("first");
      });

      it("is absent again once the value expired", async () => {
        const store = await fresh();
        expect(await store.setIfAbsent("k", "first", 0.2)).toBe(true);
        await passTime(450);
        expect(await store.get("k")).toBeNull();
        expect(await store.setIfAbsent("k", "second", 30)).toBe(true);
        expect(await store.get("k")).toBe("second");
      });

      it("lets exactly one of 20 concurrent callers win", async () => {
        const store = await fresh();
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.setIfAbsent("nonce", `v${i}`, 30)));
        const winners = results.flatMap((won, i) => (won ? [i] : []));
        expect(winners).toHaveLength(1);
        expect(await store.get("nonce")).toBe(`v${winners[0]}`);
      });
    });

    describe("take", () => {
      it("returns the value once, then null", async () => {
        const store = await fresh();
        await store.set("code", "123456", 30);
        expect(await store.take("code")).toBe("123456");
        expect(await store.take("code")).toBeNull();
        expect(await store.get("code")).toBeNull();
      });

      it("returns null for a missing or expired key", async () => {
        const store = await fresh();
        expect(await store.take("missing")).toBeNull();
        await store.set("code", "x", 0.2);
        await passTime(450);
        expect(await store.take("code")).toBeNull();
      });

      it("hands the value to exactly one of 20 concurrent takers", async () => {
        const store = await fresh();
        await store.set("state", "oauth-state", 30);
        const taken = await Promise.all(Array.from({ length: 20 }, () => store.take("state")));
        expect(taken.filter((v) => v !== null)).toEqual(["oauth-state"]);
        expect(await store.get("state")).toBeNull();
      });
    });

    describe("incrWindow", () => {
      it("counts hits within the window and reports the time left", async () => {
        const store = await fresh();
        const hits = [];
        for (let i = 0; i < 5; i++) hits.push(await store.incrWindow("rl", 60));
        expect(hits.map((h) => h.count)).toEqual([1, 2, 3, 4, 5]);
        for (const h of hits) {
          expect(h.resetInMs).toBeGreaterThan(55_000);
          expect(h.resetInMs).toBeLessThanOrEqual(60_000);
        }
      });

      it("does not extend the window on later hits", async () => {
        const store = await fresh();
        const first = await store.incrWindow("rl", 60);
        await passTime(300);
        const later = await store.incrWindow("rl", 60);
        expect(later.count).toBe(2);
        // The window started at the first hit: ~300 ms of it are gone.
        expect(later.resetInMs).toBeLessThanOrEqual(first.resetInMs - 250);
      });

      it("starts a new window once the old one ended", async () => {
        const store = await fresh();
        await store.incrWindow("rl", 0.3);
        expect((await store.incrWindow("rl", 0.3)).count).toBe(2);
        await passTime(550);
        const fresh1 = await store.incrWindow("rl", 0.3);
        expect(fresh1.count).toBe(1);
        expect(fresh1.resetInMs).toBeGreaterThan(0);
        expect(fresh1.resetInMs).toBeLessThanOrEqual(300);
      });

      it("counts 20 concurrent hits exactly once each", async () => {
        const store = await fresh();
        const hits = await Promise.all(Array.from({ length: 20 }, () => store.incrWindow("rl", 60)));
        expect(hits.map((h) => h.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      });

      it("gives a counter set without a TTL a window on its next hit", async () => {
        const store = await fresh();
        await store.set("rl", "7");
        const hit = await store.incrWindow("rl", 0.3);
        expect(hit.count).toBe(8);
        expect(hit.resetInMs).toBeGreaterThan(0);
        await passTime(550);
        expect(await store.get("rl")).toBeNull();
      });

      it("keeps separate counters per key", async () => {
        const store = await fresh();
        await store.incrWindow("a", 60);
        await store.incrWindow("a", 60);
        expect((await store.incrWindow("b", 60)).count).toBe(1);
        expect((await store.incrWindow("a", 60)).count).toBe(3);
      });
    });

    describe("ping / close", () => {
      it("answers ping while open and not after close", async () => {
        const store = await fresh();
        expect(await store.ping()).toBe(true);
        await store.close();
        expect(await store.ping()).toBe(false);
      });

      it("rejects operations after close", async () => {
        const store = await fresh();
        await store.set("k", "v");
        await store.close();
        await expect(store.get("k")).rejects.toThrow();
        await expect(store.set("k", "v")).rejects.toThrow();
      });
    });
  });
}
