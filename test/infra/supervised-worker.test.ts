import { describe, expect, it } from "vitest";
import type { NativeConnection } from "@temporalio/worker";
import { createLogger } from "../../src/log.js";
import { startSupervisedWorker } from "../../src/temporal/supervised-worker.js";
import type { RunnableWorker } from "../../src/temporal/worker.js";
import { waitFor } from "../support/poll.js";

/**
 * The supervision logic alone, with a stand-in for the worker whose run() fails the way the SDK's does when
 * it gives up on an unreachable frontend (the real worker against a killed dev server is in runtime-faults).
 */
function standIn(failAfterMs: number | undefined) {
  let state: ReturnType<RunnableWorker["getState"]> = "RUNNING";
  let settle: (err?: Error) => void = () => undefined;
  const worker: RunnableWorker = {
    getState: () => state,
    shutdown: () => {
      state = "STOPPING";
      settle();
    },
    run: () =>
      new Promise<void>((resolve, reject) => {
        settle = (err) => {
          state = err ? "FAILED" : "STOPPED";
          if (err) reject(err);
          else resolve();
        };
        if (failAfterMs !== undefined) setTimeout(() => settle(new Error("TransportError: connection refused")), failAfterMs);
      }),
  };
  let closed = false;
  const connection = { close: async () => void (closed = true) } as unknown as NativeConnection;
  return { worker, connection, closed: () => closed };
}

describe("startSupervisedWorker", () => {
  it("creates a new worker when run() rejects, logged, and shuts the current one down on stop()", async () => {
    const lines: Record<string, unknown>[] = [];
    const log = createLogger("info", (l) => lines.push(JSON.parse(l)));
    const made: ReturnType<typeof standIn>[] = [];
    let creations = 0;
    const sup = await startSupervisedWorker(
      async () => {
        creations++;
        if (creations === 2) throw new Error("connect ECONNREFUSED"); // the engine is still down
        const w = standIn(creations === 1 ? 50 : undefined);
        made.push(w);
        return w;
      },
      log,
      { name: "q", initialBackoffMs: 20 },
    );
    await waitFor("the second worker", () => made.length === 2, { timeoutMs: 5_000, intervalMs: 10 });
    expect(made[0]!.closed()).toBe(true);
    expect(sup.running()).toBe(true);
    expect(lines.map((l) => l.msg)).toEqual(["worker failed; creating a new one", "worker could not be created; retrying", "worker running again"]);
    expect(lines[0]).toMatchObject({ level: "error", error: "Error: TransportError: connection refused" });

    await sup.stop();
    expect(made[1]!.worker.getState()).toBe("STOPPED");
    expect(made[1]!.closed()).toBe(true);
    expect(sup.running()).toBe(false);
    expect(creations).toBe(3);
  });
});
