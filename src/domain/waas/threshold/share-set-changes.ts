import { SCHEMES, refreshShares, reshareSecret } from "../../../crypto/threshold/shares.js";
import type { Queryable } from "../../../db/db.js";
import { findRoom, finishRoom } from "../../../db/repositories/waas-rooms.js";
import { currentSet, destroyRetiredShares, findSetByOperation, listSets, promoteSet, type ShareSetRecord } from "../../../db/repositories/waas-share-sets.js";
import { conflict, notFound } from "../../../errors.js";
import type { Deps } from "../../deps.js";
import { writeNewWalletSet } from "./key-generation.js";
import type { RoomRecord } from "./rooms.js";
import type { WaasScheme } from "./share-operations.js";
import { answerShareSetRoom, keygenIdsOf, openShares, publicOf, roomFor, writePendingSet } from "./share-sets.js";

/**
 * A wallet's share set changing on its actor (src/workflows/waas-wallet.ts): refresh and reshare write a new
 * set pending; promotion makes it current and retires the previous one in one transaction; the retired
 * shares are then destroyed; the room gets the answer or the error. Each step is idempotent by (wallet,
 * operation id) or by the set it names, because Temporal retries it and a worker may die (kill -9) between
 * its write and its report: a retry finds what the first attempt did. Every secret a step needs is read from
 * the database (the room's contribution, encrypted to the room's key; the server's sealed share), never from
 * its input, which enters the workflow's history.
 */

type ChangeDeps = Pick<Deps, "db" | "sealer">;

export interface RoomStep {
  environmentId: string;
  walletId: string;
  roomId: string;
}

/** The rooms whose operation writes a share set. */
const SHARE_SET_ROOMS = ["keygen", "import", "refresh", "reshare"];

/**
 * The room's new pending set. A second call with the same operation id answers the set the first wrote. A
 * room that finished, or that was opened against a set no longer current, is refused (409).
 */
export async function writeRoomShareSet(deps: ChangeDeps, input: RoomStep & { operationId: string }): Promise<{ shareSetId: string }> {
  return deps.db.tx(async (t) => {
    const done = await findSetByOperation(t, input.environmentId, input.walletId, input.operationId);
    if (done) return { shareSetId: done.id };
    const room = await roomFor(t, input.environmentId, input.walletId, input.roomId, SHARE_SET_ROOMS);
    if (room.status === "done" || room.status === "failed") throw conflict("room_closed", "the room has already finished");
    // Rooms of actors that ran key generation before it moved to the request path.
    if (room.operation === "keygen" || room.operation === "import") return { shareSetId: (await writeNewWalletSet(t, deps.sealer, room, input.operationId)).id };
    return { shareSetId: (await writeNextSet(t, deps, room, input.operationId)).id };
  });
}

/** Refresh (the same key, every share new) or reshare (the same key under another scheme) of the current set. */
async function writeNextSet(t: Queryable, deps: ChangeDeps, room: RoomRecord, operationId: string): Promise<ShareSetRecord> {
  const cur = await currentSet(t, room.environmentId, room.walletId!);
  if (!cur) throw notFound("wallet");
  if (room.shareSetId !== cur.id) throw conflict("room_stale", "the wallet's key shares changed after this room opened: open a new one");
  if (room.operation === "refresh") {
    // Every holder's share: a holder left out would keep a share of the old set.
    const shares = await openShares(t, deps.sealer, cur, room, cur.holders);
    return writePendingSet(t, deps.sealer, room, operationId, refreshShares(publicOf(cur), shares), keygenIdsOf(room, cur.holders));
  }
  const next = SCHEMES[room.request.newScheme as WaasScheme];
  const shares = await openShares(t, deps.sealer, cur, room, cur.threshold);
  const reshared = reshareSecret(publicOf(cur), shares, next.threshold, next.holders);
  return writePendingSet(t, deps.sealer, room, operationId, reshared, keygenIdsOf(room, next.holders));
}

/** The set becomes current and the previous one retired, in one transaction (idempotent). */
export async function promoteShareSet(deps: Pick<Deps, "db">, input: { environmentId: string; walletId: string; shareSetId: string }): Promise<{ retiredSetIds: string[] }> {
  const r = await promoteSet(deps.db, input.environmentId, input.walletId, input.shareSetId);
  if (!r.promoted) throw conflict("share_set_superseded", "the share set was retired before it became current");
  return { retiredSetIds: r.retiredSetIds };
}

/** Destroys the shares of the wallet's retired sets (idempotent): old shares become useless for good. */
export async function destroyRetiredSets(deps: Pick<Deps, "db">, input: { environmentId: string; walletId: string }): Promise<{ destroyed: number }> {
  return { destroyed: await destroyRetiredShares(deps.db, input.environmentId, input.walletId) };
}

/** The room's answer (the wallet and the device's new shares), audited with it, once. */
export async function completeShareSetRoom(deps: Pick<Deps, "db">, input: RoomStep & { shareSetId: string }): Promise<void> {
  await deps.db.tx(async (t) => {
    const room = await roomFor(t, input.environmentId, input.walletId, input.roomId, SHARE_SET_ROOMS);
    if (room.status === "done") return;
    const set = (await listSets(t, input.environmentId, input.walletId)).find((s) => s.id === input.shareSetId);
    if (!set) throw notFound("share set");
    await answerShareSetRoom(t, room, set);
  });
}

/** A failed operation's error, written into its room for the device to read (once; idempotent). */
export async function failRoom(
  deps: Pick<Deps, "db">,
  input: { environmentId: string; roomId: string; error: { kind: string; code: string; message: string; payload?: unknown } },
): Promise<void> {
  const room = await findRoom(deps.db, input.environmentId, input.roomId);
  if (room) await finishRoom(deps.db, input.environmentId, input.roomId, { error: input.error });
}
