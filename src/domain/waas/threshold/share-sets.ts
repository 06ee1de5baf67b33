import { randomUUID } from "node:crypto";
import type { Queryable } from "../../../db/db.js";
import { findRoom, finishRoom } from "../../../db/repositories/waas-rooms.js";
import { insertFirstSet, insertPendingSet, setShares, type ShareSetRecord } from "../../../db/repositories/waas-share-sets.js";
import { serverShareSealed, thresholdWalletKey } from "../../../db/repositories/waas-threshold-wallets.js";
import type { Sealer } from "../../../crypto/seal.js";
import { encryptToKeygenId } from "../../../crypto/keygen-envelope.js";
import type { KeyShare, ShareSetPublic, ThresholdCurve } from "../../../crypto/threshold/shares.js";
import { badRequest, notFound, unprocessable } from "../../../errors.js";
import { recordChange } from "../../audit/audit.js";
import { endUserAccess } from "../../sessions/service.js";
import type { EnvironmentAccess } from "../../tenancy/access.js";
import { openRoomParts, shareLabel, type RoomRecord } from "./rooms.js";
import type { ShareSetView, WaasChain } from "./share-operations.js";

/**
 * The share-set rules every threshold operation shares: opening shares (the server's sealed one, the
 * device's from the room), writing a set with every device share encrypted to its keygen id, and reading a
 * set back as the device sees it. The server always holds share 1; the device holds 2, 3, ... in the order of
 * the request's clientKeygenIds.
 */

export const SERVER_HOLDER_INDEX = 1;
export const CURVES: Record<WaasChain, ThresholdCurve> = { EVM: "secp256k1", SOL: "ed25519" };
export const serverShareAad = (shareSetId: string, holderIndex: number) => `waas-share:${shareSetId}:${holderIndex}`;

/** The room an operation names, of this wallet and operation (anything else is a bug or an attack). */
export async function roomFor(q: Queryable, environmentId: string, walletId: string, roomId: string, operations: string[]): Promise<RoomRecord> {
  const room = await findRoom(q, environmentId, roomId);
  if (!room || room.walletId !== walletId) throw notFound("room");
  if (!operations.includes(room.operation)) throw badRequest("invalid_room", `room ${roomId} is a ${room.operation} room`);
  return room;
}

/** Who the operation is audited as: the room's user, in the environment the room was opened in. */
export function roomAccess(room: RoomRecord): EnvironmentAccess {
  const a = room.request.audit as { organizationId: string; projectId: string; environmentName: "live" | "sandbox"; requestId: string };
  return endUserAccess({ environmentId: room.environmentId, organizationId: a.organizationId, projectId: a.projectId, environmentName: a.environmentName }, room.userId, a.requestId);
}

/** The device's keygen ids of a room's request (one per device holder, holder 2 first). */
export function keygenIdsOf(room: RoomRecord, holders: number): string[] {
  const ids = room.request.clientKeygenIds;
  if (!Array.isArray(ids) || ids.length !== holders - 1 || !ids.every((i) => typeof i === "string")) {
    throw unprocessable("invalid_keygen_ids", `this scheme needs ${holders - 1} client keygen ids, one per share the device keeps`);
  }
  return ids as string[];
}

/** A pending set: the server's share sealed, every other encrypted to its keygen id. */
export async function writePendingSet(
  t: Queryable,
  sealer: Sealer,
  room: RoomRecord,
  operationId: string,
  split: { public: ShareSetPublic; shares: KeyShare[] },
  keygenIds: string[],
): Promise<ShareSetRecord> {
  const { set } = await insertPendingSet(t, room.environmentId, await newSetRow(sealer, room, operationId, split, keygenIds));
  return set;
}

/** A new wallet's first set, current at once (nothing to retire), sealed and encrypted as writePendingSet's. */
export async function writeFirstSet(
  t: Queryable,
  sealer: Sealer,
  room: RoomRecord,
  operationId: string,
  split: { public: ShareSetPublic; shares: KeyShare[] },
  keygenIds: string[],
): Promise<ShareSetRecord> {
  return insertFirstSet(t, room.environmentId, await newSetRow(sealer, room, operationId, split, keygenIds));
}

async function newSetRow(sealer: Sealer, room: RoomRecord, operationId: string, split: { public: ShareSetPublic; shares: KeyShare[] }, keygenIds: string[]) {
  const id = randomUUID();
  // The device's envelopes are independent ECDH encryptions: made together, not one after the other.
  const shares = await Promise.all(
    split.shares.map(async (s) => {
      if (s.index === SERVER_HOLDER_INDEX) return { holderIndex: s.index, shareSealed: sealer.seal(s.value, serverShareAad(id, s.index)) };
      const keygenId = keygenIds[s.index - 2]!;
      const encryptedForHolder = await encryptToKeygenId(keygenId, shareLabel(id, s.index), new TextEncoder().encode(s.value));
      return { holderIndex: s.index, encryptedForHolder, holderKeygenId: keygenId };
    }),
  );
  const { curve, threshold, holders, commitments } = split.public;
  return { id, walletId: room.walletId!, operationId, curve, threshold, holders, commitments, shares };
}

/** The server's share of a set, unsealed (422 when it is gone: a backup brings it back). */
export async function openServerShare(q: Queryable, sealer: Sealer, set: ShareSetRecord): Promise<KeyShare> {
  return serverShareOf(sealer, set, await serverShareSealed(q, set.environmentId, set.id, SERVER_HOLDER_INDEX));
}

/** The server's share of `set` from its sealed value, read by the caller (null: it is gone). */
export function serverShareOf(sealer: Sealer, set: ShareSetRecord, sealed: string | null): KeyShare {
  if (!sealed) throw unprocessable("server_share_missing", "the server's key share of this wallet is gone: recover it from a backup");
  return { index: SERVER_HOLDER_INDEX, value: sealer.open(sealed, serverShareAad(set.id, SERVER_HOLDER_INDEX)) };
}

/**
 * The server's share of `set` and the device's shares the room's contribution carries (each a JWE to the
 * room's key labelled `share-<index>`), opened; at least `needed` in all. `read`: the server's sealed share
 * and the room's sealed key when the caller read them already (a signature, with its locked set).
 */
export async function openShares(
  q: Queryable,
  sealer: Sealer,
  set: ShareSetRecord,
  room: RoomRecord,
  needed: number,
  read?: { serverShareSealed: string | null; roomKeySealed: string },
): Promise<KeyShare[]> {
  const shares: KeyShare[] = [read ? serverShareOf(sealer, set, read.serverShareSealed) : await openServerShare(q, sealer, set)];
  const given = (room.contribution?.shares ?? {}) as Record<string, unknown>;
  if (typeof given !== "object" || given === null || Array.isArray(given)) throw badRequest("invalid_contribution", "shares must map holder indexes to envelopes");
  const parts = Object.entries(given).map(([key, jwe]) => {
    const index = Number(key);
    if (!Number.isInteger(index) || index <= SERVER_HOLDER_INDEX || index > set.holders) {
      throw unprocessable("invalid_holder", `holder ${key} is not a device holder of this ${set.threshold}-of-${set.holders} wallet`);
    }
    return { index, part: `share-${index}`, jwe };
  });
  const opened = await openRoomParts(q, sealer, room, parts, read?.roomKeySealed);
  parts.forEach((p, i) => shares.push({ index: p.index, value: new TextDecoder().decode(opened[i]) }));
  if (shares.length < needed) throw unprocessable("not_enough_key_shares", `${needed} shares are needed, ${shares.length} were given (the server's included)`);
  return shares;
}

/** The set as the device sees it: public data and each device holder's envelope. */
export async function viewOf(q: Queryable, environmentId: string, set: ShareSetRecord): Promise<ShareSetView> {
  const stored = await setShares(q, environmentId, set.id);
  return {
    shareSetId: set.id,
    epoch: set.epoch,
    curve: set.curve,
    threshold: set.threshold,
    holders: set.holders,
    commitments: set.commitments,
    encryptedShares: stored.flatMap((s) =>
      s.encryptedForHolder ? [{ holderIndex: s.holderIndex, keygenId: s.holderKeygenId ?? "", encryptedShare: s.encryptedForHolder }] : [],
    ),
  };
}

export function publicOf(set: ShareSetRecord): ShareSetPublic {
  return { curve: set.curve as ThresholdCurve, threshold: set.threshold, holders: set.holders, commitments: set.commitments };
}

const ANSWERED: Partial<Record<RoomRecord["operation"], string>> = {
  keygen: "waas_wallet.created",
  import: "waas_wallet.imported",
  refresh: "waas_wallet.refreshed",
  reshare: "waas_wallet.reshared",
};

/**
 * A share-set room's answer (the wallet and the device's new shares), audited with its event, in the caller's
 * transaction; a room already done is answered as it is (a retried step does nothing twice).
 */
export async function answerShareSetRoom(t: Queryable, room: RoomRecord, set: ShareSetRecord): Promise<RoomRecord> {
  if (room.status === "done") return room;
  const wallet = await thresholdWalletKey(t, room.environmentId, room.walletId!);
  const result = { walletId: room.walletId!, ...wallet, shareSet: await viewOf(t, room.environmentId, set) };
  const done = await finishRoom(t, room.environmentId, room.id, { result });
  await recordChange(t, roomAccess(room), {
    action: ANSWERED[room.operation]!,
    resourceType: "waas_wallet",
    resourceId: room.walletId!,
    after: { userId: room.userId, chain: wallet.chain, address: wallet.address, epoch: set.epoch, threshold: set.threshold, holders: set.holders },
  });
  return done;
}
