import { describe, expect, it } from "vitest";
import { Mutex } from "../../src/workflows/actor.js";

// The lock of the actors' operation queue (src/workflows/actor.ts): first in, first out, one holder at a
// time, and a holder that fails hands over like one that succeeds. (In a workflow its promises settle in
// order and it issues no command: the wallet actor's replay histories check that, test/workflows/waas-wallet.test.ts.)
describe("the actor's mutex", () => {
  it("runs holders one at a time in the order they asked, past a failing one", async () => {
    const lock = new Mutex();
    const log: string[] = [];
    const holder = (name: string, fail = false) =>
      lock.runExclusive(async () => {
        log.push(`${name} in`);
        await new Promise((r) => setTimeout(r, 5));
        log.push(`${name} out`);
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([holder("a"), holder("b", true), holder("c")]);
    expect(log).toEqual(["a in", "a out", "b in", "b out", "c in", "c out"]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  });
});
