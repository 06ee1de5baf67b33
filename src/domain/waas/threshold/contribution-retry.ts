import type { RoomRecord } from "../../../db/repositories/waas-rooms.js";

/**
 * A device whose contribution was taken but whose room's run never reached the wallet's actor got 503
 * "retry". Its retry posts the same contribution again: that is the same post, and the run is submitted again
 * (the Update id names the room, so a run already under way is joined, never repeated). Only rooms still
 * waiting for their run on the actor qualify; anything else posted to a room that took its part is 409.
 */
export function isRetriedContribution(room: RoomRecord, contribution: Record<string, unknown>): boolean {
  return room.status === "contributed" && RUN_ON_ACTOR.has(room.operation) && canonical(room.contribution) === canonical(contribution);
}

const RUN_ON_ACTOR = new Set<string>(["refresh", "reshare", "export"]);

/** JSON with object keys sorted: the stored contribution comes back from jsonb with its keys reordered. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
