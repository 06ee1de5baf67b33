import { setTimeout as sleep } from "node:timers/promises";
import type { NativeConnection } from "@temporalio/worker";
import type { Logger } from "../log.js";
import type { RunnableWorker } from "./worker.js";

export interface SupervisedWorker {
  /** A worker is running right now (not between a failure and its replacement). */
  running(): boolean;
  /** Shuts the worker down (its shutdown grace and force times bound this) and creates no new one. */
  stop(): Promise<void>;
}

export interface WorkerSupervisorOptions {
  /** For log lines: the task queue. */
  name: string;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

/**
 * Runs a Temporal worker and, when worker.run() rejects (the SDK gives up on a frontend that stays
 * unreachable, a fatal core error), creates a new one with backoff, logged, so that a Temporal outage does
 * not leave the process serving the API with no worker. The first creation is awaited: a worker that cannot
 * start at all fails the start of the process, as before.
 */
export async function startSupervisedWorker(
  create: () => Promise<{ worker: RunnableWorker; connection: NativeConnection }>,
  log: Logger,
  opts: WorkerSupervisorOptions,
): Promise<SupervisedWorker> {
  const initial = opts.initialBackoffMs ?? 1_000;
  const cap = opts.maxBackoffMs ?? 30_000;
  const stopSignal = new AbortController();
  let stopped = false;
  let current: { worker: RunnableWorker; connection: NativeConnection; run: Promise<void> } | undefined;

  const launch = async () => {
    const { worker, connection } = await create();
    current = { worker, connection, run: worker.run() };
    return current;
  };

  const loop = async (first: NonNullable<typeof current>) => {
    let active: typeof current = first;
    let backoff = initial;
    while (!stopped) {
      try {
        await active.run;
        if (stopped) return;
        log.error("worker stopped by itself; creating a new one", { taskQueue: opts.name });
      } catch (err) {
        if (stopped) return;
        log.error("worker failed; creating a new one", { taskQueue: opts.name, error: String(err), retryInMs: backoff });
      }
      current = undefined;
      await active.connection.close().catch(() => undefined);
      for (;;) {
        try {
          await sleep(backoff, undefined, { signal: stopSignal.signal });
        } catch {
          return;
        }
        backoff = Math.min(backoff * 2, cap);
        try {
          active = await launch();
          if (stopped) return; // stop() shuts this one down
          log.info("worker running again", { taskQueue: opts.name });
          backoff = initial;
          break;
        } catch (err) {
          if (stopped) return;
          log.error("worker could not be created; retrying", { taskQueue: opts.name, error: String(err), retryInMs: backoff });
        }
      }
    }
  };

  const first = await launch();
  const supervising = loop(first).catch((err) => log.error("worker supervisor failed", { error: String(err) }));

  return {
    running: () => current?.worker.getState() === "RUNNING",
    async stop() {
      if (stopped) return;
      stopped = true;
      stopSignal.abort();
      const shutdown = async (c: NonNullable<typeof current>) => {
        if (c.worker.getState() === "RUNNING") c.worker.shutdown();
        await c.run.catch((err) => log.warn("worker shutdown", { error: String(err) }));
        await c.connection.close().catch(() => undefined);
      };
      const c = current;
      if (c) await shutdown(c);
      await supervising;
      // A replacement created while we were stopping.
      if (current && current !== c) await shutdown(current);
    },
  };
}
