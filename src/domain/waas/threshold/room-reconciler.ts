import { countStaleRooms, listStaleRooms, type StaleRoom } from "../../../db/repositories/waas-rooms.js";
import { DomainError } from "../../../errors.js";
import type { Deps } from "../../deps.js";
import { exportRunKey } from "./export-ids.js";
import type { RoomOperationName } from "./share-operations.js";

/**
 * Rooms left hanging. A room's contribution is saved before the wallet's actor is asked to run it; when that
 * request never lands in Temporal (the engine paused or down, the process killed in between) nothing runs
 * the room, and it would stay `contributed` for ever (its device got 503). The reconciler runs every such
 * room again on the actor, at the worker's start and then on a timer.
 *
 * Running a room again is safe: the Update id names the room (`<operation>:<roomId>`, src/temporal/flows.ts),
 * so a run still in flight is joined rather than repeated; a new actor run re-enters the operation's
 * activities, which are idempotent by operation id and refuse a room that already finished (room_closed,
 * and finishRoom never overwrites an outcome). The reconciler never fails a room itself: the actor may be
 * running it at that moment, and a refresh failed behind its back would leave the device without the new
 * shares of a set that did become current. A room that cannot be run while the engine is down stays
 * `contributed` and counts in the stale-room metric until the engine answers again. The worker runs a pass
 * at its start and on a timer (../../reconciler.ts).
 */

type ReconcilerDeps = Pick<Deps, "db" | "flows" | "log">;

/** Operations that run on the wallet's actor; the others finish inside their request's own transaction. */
const ON_ACTOR = new Set<string>(["refresh", "reshare", "export"]);
/** Rooms run again per pass, a few at a time: a pass ends well within one interval. */
const PASS_LIMIT = 100;
const CONCURRENCY = 4;

export interface ReconcilePass {
  /** Rooms found stale. */
  found: number;
  /** Rooms whose run was submitted and answered (the room now holds its outcome). */
  finished: number;
  /** Rooms whose run could not be submitted (the engine is still unreachable): tried again next pass. */
  deferred: number;
}

/** One pass: every room stale for staleMs is run again on its wallet's actor, in its own environment. */
export async function reconcileRooms(deps: ReconcilerDeps, staleMs: number): Promise<ReconcilePass> {
  const stale = (await listStaleRooms(deps.db, staleMs / 1000, PASS_LIMIT)).filter((r) => ON_ACTOR.has(r.operation));
  const pass: ReconcilePass = { found: stale.length, finished: 0, deferred: 0 };
  let next = 0;
  const lane = async () => {
    while (next < stale.length) {
      const room = stale[next++]!;
      const outcome = await runAgain(deps, room);
      if (outcome === "deferred") pass.deferred++;
      else pass.finished++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, stale.length) }, lane));
  return pass;
}

async function runAgain(deps: ReconcilerDeps, room: StaleRoom): Promise<"finished" | "deferred"> {
  const fields = { environmentId: room.environmentId, walletId: room.walletId, roomId: room.id, operation: room.operation };
  try {
    await deps.flows.runWaasRoom({
      environmentId: room.environmentId,
      walletId: room.walletId,
      userId: room.userId,
      roomId: room.id,
      operation: room.operation as RoomOperationName,
      ...(room.operation === "export" && room.exportId ? { exportId: exportRunKey(room.exportId, room.exportAttempt) } : {}),
    });
    deps.log.info("waas room run again", fields);
    return "finished";
  } catch (err) {
    // A refusal of the operation was written into the room by the actor: the room is finished (failed).
    if (err instanceof DomainError && err.kind !== "unavailable") {
      deps.log.info("waas room run again: refused", { ...fields, code: err.code });
      return "finished";
    }
    deps.log.warn("waas room could not be run again; retrying next pass", { ...fields, error: err instanceof Error ? err.message : String(err) });
    return "deferred";
  }
}

/** Stale rooms right now (the metric): how many, and how long the oldest has waited. */
export function staleRooms(deps: Pick<Deps, "db">, staleMs: number): Promise<{ count: number; oldestSeconds: number }> {
  return countStaleRooms(deps.db, staleMs / 1000);
}
