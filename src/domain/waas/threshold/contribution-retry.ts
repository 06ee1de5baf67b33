import type { RoomRecord } from "../../../db/repositories/waas-rooms.js";

/**
 * A device whose contribution was taken but whose room's run never reached the wallet's actor got 503
 * "retry". Its retry posts the same contribution again: that is the same post, and the run is submitted again
 * (the Update id names the room, so a run already under way is joined, never repeated). The run may have
 * finished meanwhile (the worker's reconciler hands such rooms to the actor again): the same post then
 * answers the room's outcome. Only rooms run on the actor qualify; anything else posted to a room that took
 * its part is 409.
 */
export function isRetriedContribution(room: RoomRecord, contribution: Record<string, unknown>): boolean {
  return RETRIED_STATUSES.has(room.status) && RUN_ON_ACTOR.has(room.operation) && canonical(room.contribution) === canonical(contribution);
}

const RETRIED_STATUSES = new Set<string>(["contributed", "done", "failed"]);

const RUN_ON_ACTOR = new Set<string>(["refresh", "reshare", "export"]);

/** JSON with object keys sorted: the stored contribution comes back from jsonb with its keys reordered. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
