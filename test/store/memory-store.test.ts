import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MemoryStore } from "../../src/store/memory-store.js";
import { createStore } from "../../src/store/store.js";
import { runStoreContract } from "./store-contract.js";

// The in-process store's TTLs run on the process clock and timers: fake ones move on at once.
describe("the in-process store, its clock moved on by fake timers", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());
  runStoreContract("memory", async (opts) => new MemoryStore(opts), async (ms) => void (await vi.advanceTimersByTimeAsync(ms)));
});

describe("MemoryStore specifics", () => {
  it("createStore without a Redis URL gives the in-process store", async () => {
    const store = await createStore(undefined, { keyPrefix: "x:" });
    try {
      expect(store).toBeInstanceOf(MemoryStore);
    } finally {
      await store.close();
    }
  });

  it("sweeps expired entries that are never read again", async () => {
    vi.useFakeTimers();
    const store = new MemoryStore({}, 20);
    try {
      await store.set("a", "1", 0.05);
      await store.set("b", "2", 60);
      expect(store.entryCount()).toBe(2);
      await vi.advanceTimersByTimeAsync(250);
      expect(store.entryCount()).toBe(1);
    } finally {
      await store.close();
      vi.useRealTimers();
    }
  });

  it("does not keep the process alive when left open", () => {
    const fixture = fileURLToPath(new URL("./fixtures/memory-store-left-open.ts", import.meta.url));
    const child = spawnSync(process.execPath, ["--import", "tsx", fixture], { encoding: "utf8", timeout: 20_000 });
    expect(child.error).toBeUndefined(); // a timeout (the process stayed alive) shows up here
    expect(child.stdout.trim()).toBe("ready");
    expect(child.status).toBe(0);
  });
});
