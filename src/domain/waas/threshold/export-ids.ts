import type { Queryable } from "../../../db/db.js";
import { releaseFailedExportId } from "../../../db/repositories/waas-rooms.js";

/**
 * An export id is used once, by the export that happened (or is under way): one that failed (its room says
 * why) frees the id for the next try, which the device makes with the same id. Each try is its own export
 * workflow: `wallet-export/<walletId>/<exportId>` the first, `.../<exportId>/attempt-<n>` the n-th, so that
 * a finished workflow's id is never reused (REJECT_DUPLICATE).
 */

/** The attempt number the next export room of this id gets, or null when the id stays taken. */
export async function nextExportAttempt(q: Queryable, environmentId: string, walletId: string, exportId: string): Promise<number | null> {
  const released = await releaseFailedExportId(q, environmentId, walletId, exportId);
  return released > 0 ? released + 1 : null;
}

/** The export's key in its workflow id (Flows.runWaasRoom's exportId): the id, and the attempt after the first. */
export function exportRunKey(exportId: string, attempt: unknown): string {
  return typeof attempt === "number" && attempt > 1 ? `${exportId}/attempt-${attempt}` : exportId;
}
