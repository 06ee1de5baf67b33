import { randomUUID } from "node:crypto";
import type { Sealer } from "../../../crypto/seal.js";
import { newKeygenKey, openFromKeygenId } from "../../../crypto/keygen-envelope.js";
import type { Queryable } from "../../../db/db.js";
import * as repo from "../../../db/repositories/waas-rooms.js";
import { isRetriedContribution } from "./contribution-retry.js";
import type { RoomOperation, RoomRecord } from "../../../db/repositories/waas-rooms.js";
import { DomainError, badRequest, conflict, notFound } from "../../../errors.js";
import { codedFailure } from "../../failure-codec.js";

/**
 * Rooms: where the user's device and the service meet for one key-share operation of a threshold wallet
 * (the published client's OpenRoomResponse: `{roomId, serverKeygenIds, walletId}`). A room has a fresh
 * P-256 key (its keygen id is `serverKeygenIds[0]`; the private half sealed, bound to the room), the
 * operation's public parameters, and takes one contribution from the device: its shares or an imported key,
 * each encrypted to the room's key (src/crypto/keygen-envelope.ts). Signatures and new wallets run in the
 * request's own transaction; refresh, reshare and export run on the wallet actor with the room's id only, so
 * no Temporal history holds anything that opens a share. The result (the device's new shares encrypted to its
 * keygen ids, a signature, an export envelope) is written back into the room for the device to read. Rooms
 * last ten minutes and serve once.
 */

export const ROOM_TTL_SECONDS = 600;
/** Finished rooms stay readable a day (a device that lost the answer reads it again), then go. */
const ROOM_KEEP_SECONDS = 86_400;

export type { RoomOperation, RoomRecord };

/** The label (authenticated header) of a share encrypted to its holder: set and holder index. */
export const shareLabel = (shareSetId: string, holderIndex: number) => `share:${shareSetId}:${holderIndex}`;
/** The label of a part the device sends into a room (a holder's share, an imported key). */
export const roomPartLabel = (roomId: string, part: string) => `room:${roomId}:${part}`;
export const roomKeyAad = (roomId: string) => `waas-room:${roomId}`;

/** Opens a room for an operation of `userId` on `walletId` (a keygen/import room names the wallet to be). */
export async function openRoom(
  q: Queryable,
  sealer: Sealer,
  room: { environmentId: string; userId: string; walletId: string | null; operation: RoomOperation; request: Record<string, unknown>; shareSetId?: string | null },
): Promise<RoomRecord> {
  const id = randomUUID();
  const key = newKeygenKey();
  return repo.insertRoom(q, {
    ...room,
    id,
    serverKeygenId: key.keygenId,
    serverKeySealed: sealer.seal(key.privateJwk, roomKeyAad(id)),
    ttlSeconds: ROOM_TTL_SECONDS,
    keepSeconds: ROOM_KEEP_SECONDS,
  });
}

/**
 * Opens a keygen room for `userId`, unless the user already has one for the same device keygen ids (a retried
 * createWaasAccount): then that room, which the caller answers again instead of making a second wallet.
 */
export async function openKeygenRoomOnce(
  q: Queryable,
  sealer: Sealer,
  room: { environmentId: string; userId: string; walletId: string; request: Record<string, unknown> & { clientKeygenIds: string[] } },
): Promise<RoomRecord> {
  const id = randomUUID();
  const key = newKeygenKey();
  const inserted = await repo.insertKeygenRoomOnce(q, {
    ...room,
    id,
    operation: "keygen",
    serverKeygenId: key.keygenId,
    serverKeySealed: sealer.seal(key.privateJwk, roomKeyAad(id)),
    ttlSeconds: ROOM_TTL_SECONDS,
    keepSeconds: ROOM_KEEP_SECONDS,
  });
  if (inserted) return inserted;
  const first = await repo.findKeygenRoom(q, room.environmentId, room.userId, room.request.clientKeygenIds);
  if (!first) throw conflict("room_closed", "the keygen room of these keygen ids is gone: make new keygen ids");
  if (first.request.chain !== room.request.chain || first.request.scheme !== room.request.scheme) {
    throw conflict("keygen_ids_used", "these client keygen ids made another wallet already: make new keygen ids");
  }
  return first;
}

/** The caller's room; another user's or another environment's is answered like one that does not exist. */
export async function userRoom(q: Queryable, environmentId: string, userId: string, roomId: string): Promise<RoomRecord> {
  const room = await repo.findRoom(q, environmentId, roomId);
  if (!room || room.userId !== userId) throw notFound("room");
  return room;
}

/**
 * Takes the device's one contribution to an open room. A second post, a post after the room finished or
 * expired, answers 409 room_closed; of two concurrent posts exactly one is taken. The same contribution
 * posted again while the room still waits for its run on the actor (the first post answered 503) is that
 * same post again (./contribution-retry.ts).
 */
export async function takeContribution(q: Queryable, environmentId: string, userId: string, roomId: string, contribution: Record<string, unknown>): Promise<RoomRecord> {
  if (typeof contribution !== "object" || contribution === null || Array.isArray(contribution)) {
    throw badRequest("invalid_contribution", "contribution must be an object");
  }
  if (JSON.stringify(contribution).length > 64_000) throw badRequest("invalid_contribution", "contribution is too large");
  const taken = await repo.contribute(q, environmentId, userId, roomId, contribution);
  if (taken) return taken;
  const room = await userRoom(q, environmentId, userId, roomId);
  if (room.operation === "keygen") throw conflict("room_closed", "a keygen room takes no contribution: read its result");
  if (isRetriedContribution(room, contribution)) return room;
  throw conflict("room_closed", room.status === "open" ? "the room has expired" : "the room has already taken its contribution");
}

/**
 * Opens the parts the device encrypted to the room's key (the operation that runs the room only).
 * `keySealed`: the room's sealed key when the caller read it already (a signature reads it with its share set).
 */
export async function openRoomParts(q: Queryable, sealer: Sealer, room: RoomRecord, parts: { part: string; jwe: unknown }[], keySealed?: string): Promise<Uint8Array[]> {
  for (const { part, jwe } of parts) if (typeof jwe !== "string") throw badRequest("invalid_contribution", `the contribution lacks ${part}`);
  // The room's key is read and unsealed once for all the parts.
  const sealed = keySealed ?? (await repo.roomSecrets(q, room.environmentId, room.id))?.serverKeySealed;
  if (!sealed) throw notFound("room");
  const key = sealer.open(sealed, roomKeyAad(room.id));
  return Promise.all(parts.map(({ part, jwe }) => openFromKeygenId(key, roomPartLabel(room.id, part), jwe as string, part)));
}

/** The DomainError a failed room stands for (stored by the actor as the failure codec decoded it). */
export function errorOfRoom(e: NonNullable<RoomRecord["error"]>): DomainError {
  const f = codedFailure(e);
  return new DomainError(f.kind, f.code, f.message, f.payload);
}
