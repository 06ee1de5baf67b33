import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../src/store/memory-store.js";
import { createStore } from "../../src/store/store.js";
import { runStoreContract } from "./store-contract.js";

runStoreContract("memory", async (opts) => new MemoryStore(opts));

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
    const store = new MemoryStore({}, 20);
    try {
      await store.set("a", "1", 0.05);
      await store.set("b", "2", 60);
      expect(store.entryCount()).toBe(2);
      await sleep(250);
      expect(store.entryCount()).toBe(1);
    } finally {
      await store.close();
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
