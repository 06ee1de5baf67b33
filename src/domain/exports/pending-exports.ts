import { countStalePendingExports, listStalePendingExports } from "../../db/repositories/exports.js";
import type { Deps } from "../deps.js";

/**
 * An export is stored (pending) before its workflow is started (./service.ts): a process killed in between
 * left it pending for ever, its workflow never started. The worker's reconciler (../reconciler.ts) starts
 * the workflow of every export still pending after the stale time, each in its own environment. Safe to
 * repeat: the start of an export's workflow id joins the one running (USE_EXISTING), and the workflow
 * claims the export's run itself (exports.claimExportRun).
 */
export async function startPendingExports(deps: Pick<Deps, "db" | "flows" | "log">, staleMs: number): Promise<{ found: number; started: number }> {
  const pending = await listStalePendingExports(deps.db, staleMs / 1000, 100);
  let started = 0;
  for (const e of pending) {
    try {
      await deps.flows.startExport({ environmentId: e.environmentId, exportId: e.id });
      started++;
    } catch (err) {
      deps.log.warn("pending export could not be started; retrying next pass", { environmentId: e.environmentId, exportId: e.id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return { found: pending.length, started };
}

/** Exports pending past the stale time right now (the metric). */
export function stalePendingExports(deps: Pick<Deps, "db">, staleMs: number): Promise<number> {
  return countStalePendingExports(deps.db, staleMs / 1000);
}
