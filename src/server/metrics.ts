import type { Deps } from "../domain/deps.js";
import { stalePendingExports } from "../domain/exports/pending-exports.js";
import { staleRooms } from "../domain/waas/threshold/room-reconciler.js";

/**
 * GET /metrics, in the Prometheus text format: what an operator alerts on that /healthz does not say. Work
 * accepted whose durable flow has not run past SIGIL_RECONCILE_STALE_MS: threshold-wallet rooms contributed
 * to and still without an outcome, users exports still pending. The worker's reconciler hands them over
 * again (src/domain/reconciler.ts); a count that stays above zero means it cannot (the workflow engine is
 * unreachable, or no worker runs). Counts only, across environments: nothing that names a tenant.
 */
export async function metricsText(deps: Pick<Deps, "db" | "config">): Promise<string> {
  const staleMs = deps.config.reconciler.staleMs;
  const [rooms, exports] = await Promise.all([staleRooms(deps, staleMs), stalePendingExports(deps, staleMs)]);
  return [
    "# HELP sigil_waas_rooms_stale Threshold-wallet rooms contributed to and still without an outcome after the stale time.",
    "# TYPE sigil_waas_rooms_stale gauge",
    `sigil_waas_rooms_stale ${rooms.count}`,
    "# HELP sigil_waas_rooms_stale_oldest_seconds Seconds since the contribution of the oldest stale room (0 when none).",
    "# TYPE sigil_waas_rooms_stale_oldest_seconds gauge",
    `sigil_waas_rooms_stale_oldest_seconds ${Math.round(rooms.oldestSeconds)}`,
    "# HELP sigil_exports_pending_stale Users exports still pending (their workflow not started) after the stale time.",
    "# TYPE sigil_exports_pending_stale gauge",
    `sigil_exports_pending_stale ${exports}`,
    "",
  ].join("\n");
}
