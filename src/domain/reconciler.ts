import { setTimeout as sleep } from "node:timers/promises";
import type { Deps } from "./deps.js";
import { startPendingExports } from "./exports/pending-exports.js";
import { reconcileRooms } from "./waas/threshold/room-reconciler.js";

/**
 * Work that was accepted and stored, then handed to a durable flow by a call that may never have reached the
 * workflow engine (the engine down, the process killed in between): a threshold-wallet room whose run never
 * reached its wallet's actor, a users export whose workflow never started. The worker hands each again, at
 * its start and then on a timer; every hand-over is idempotent, so any number of workers may do it.
 */

type ReconcilerDeps = Pick<Deps, "db" | "flows" | "log">;

export async function reconcileOnce(deps: ReconcilerDeps, opts: { staleMs: number }): Promise<void> {
  const rooms = await reconcileRooms(deps, opts.staleMs);
  if (rooms.found) deps.log.warn("waas rooms left unfinished were run again", { ...rooms });
  const exports = await startPendingExports(deps, opts.staleMs);
  if (exports.found) deps.log.warn("exports left pending were started again", { ...exports });
}

export interface Reconciler {
  stop(): Promise<void>;
}

/** A pass still waiting on the engine when the process stops gets this long (its calls are then cancelled). */
const STOP_WAIT_MS = 2_000;

/** Runs a pass now and then every intervalMs, one pass at a time. */
export function startReconciler(deps: ReconcilerDeps, opts: { intervalMs: number; staleMs: number }): Reconciler {
  let stopped = false;
  let running: Promise<void> | undefined;
  const tick = () => {
    if (stopped || running) return;
    running = reconcileOnce(deps, opts)
      .catch((err) => deps.log.warn("reconciler pass failed", { error: err instanceof Error ? err.message : String(err) }))
      .finally(() => (running = undefined));
  };
  tick();
  const timer = setInterval(tick, opts.intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (running) await Promise.race([running, sleep(STOP_WAIT_MS, undefined, { ref: false })]);
    },
  };
}
