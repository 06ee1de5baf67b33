import { base58 } from "@scure/base";
import { bytesToHex, hexToBytes } from "@noble/curves/utils.js";
import type { Sealer } from "../../../crypto/seal.js";
import { signDigestWithShares } from "../../../crypto/threshold/ecdsa.js";
import { frostAggregate, frostCommit, frostSignShare } from "../../../crypto/threshold/frost.js";
import type { Queryable } from "../../../db/db.js";
import { finishRoomRecorded, setRoomCommitments } from "../../../db/repositories/waas-rooms.js";
import { currentSet, lockSetForSigning, type SigningMaterial } from "../../../db/repositories/waas-share-sets.js";
import { thresholdWalletKey } from "../../../db/repositories/waas-threshold-wallets.js";
import { badRequest, conflict, notFound, unprocessable } from "../../../errors.js";
import { changeRows } from "../../audit/audit.js";
import { signedSolanaTransaction } from "../sign-request-svm.js";
import { signedEvmTransaction } from "../sign-request.js";
import type { RoomRecord } from "./rooms.js";
import { SERVER_HOLDER_INDEX, openShares, publicOf, roomAccess, serverShareOf } from "./share-sets.js";

/**
 * Signing with a threshold wallet. EVM (ECDSA): no usable open threshold-ECDSA library exists
 * (docs/decisions.md), so the server's share and the device's (sent into the room encrypted to its key) are
 * combined in memory only, used and wiped. Solana (ed25519) signs with FROST (RFC 9591) and the key is never
 * rebuilt: the server commits to its nonces when the room opens (commitSigningRound), the device answers with
 * its commitments and signature shares, and signInRoom adds the server's share and aggregates.
 *
 * Signing runs in the caller's transaction and holds the room's share set FOR SHARE (lockSetForSigning, which
 * reads the set's server share and the room's secrets in the same statement) from the check to the commit: a
 * refresh or reshare promoting a new set waits for the signatures in flight, and a signature that comes after
 * the promotion finds its set retired (409 room_stale) and never uses it. The room's outcome, its audit row
 * and event are one statement (finishRoomRecorded): a signature is five round trips with BEGIN and COMMIT.
 */

export const noncesAad = (roomId: string) => `waas-room-nonces:${roomId}`;

const stale = () => conflict("room_stale", "the wallet's key shares changed after this room opened: open a new one");

/** What a signature in a room reads: the room is there (its secrets are not null). */
type Material = SigningMaterial & { room: NonNullable<SigningMaterial["room"]> };

/**
 * The room's set, locked for this transaction while it is the wallet's current one (409 room_stale otherwise),
 * with the server's sealed share and the room's sealed key and nonces.
 */
async function signingMaterial(t: Queryable, room: RoomRecord): Promise<Material> {
  const setId = room.shareSetId ?? (await currentSet(t, room.environmentId, room.walletId!))?.id;
  if (!setId) throw notFound("wallet");
  const material = await lockSetForSigning(t, room.environmentId, room.walletId!, setId, room.id, SERVER_HOLDER_INDEX);
  if (!material) throw stale();
  if (!material.room) throw notFound("room");
  return { ...material, room: material.room };
}

/** FROST round 1 for the server: commitments published in the room, nonces sealed in it (once). */
export async function commitSigningRound(t: Queryable, sealer: Sealer, room: RoomRecord): Promise<void> {
  if (room.serverCommitments) return;
  const { set, serverShareSealed } = await signingMaterial(t, room);
  const { nonces, commitments } = frostCommit("ed25519", publicOf(set), serverShareOf(sealer, set, serverShareSealed));
  await setRoomCommitments(t, room.environmentId, room.id, {
    shareSetId: set.id,
    commitments: { [SERVER_HOLDER_INDEX]: commitments },
    noncesSealed: sealer.seal(nonces, noncesAad(room.id)),
  });
}

/**
 * Signs a contributed room's digest or message with its share set; the signature goes into the room, with
 * its audit row and event, in the caller's transaction. A room already done is answered as it is.
 */
export async function signInRoom(t: Queryable, sealer: Sealer, room: RoomRecord): Promise<RoomRecord> {
  if (room.status === "done") return room;
  if (room.status !== "contributed") throw conflict("room_closed", "the room is not waiting to sign");
  const material = await signingMaterial(t, room);
  const result = room.request.scheme === "frost-ed25519" ? await frostSign(t, sealer, room, material) : await ecdsaSign(t, sealer, room, material);
  const signed = {
    action: "waas_wallet.message_signed",
    resourceType: "waas_wallet",
    resourceId: room.walletId!,
    after: { userId: room.userId, kind: room.request.kind, roomId: room.id },
  };
  return finishRoomRecorded(t, room.environmentId, room.id, result, changeRows(roomAccess(room), [signed]));
}

const hexMap = (v: unknown, what: string): Record<number, string> => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw badRequest("invalid_contribution", `${what} must map holder indexes to hex`);
  const out: Record<number, string> = {};
  for (const [k, x] of Object.entries(v)) {
    const i = Number(k);
    if (!Number.isInteger(i) || i <= SERVER_HOLDER_INDEX || typeof x !== "string") throw badRequest("invalid_contribution", `${what}: holder ${k} cannot be given here`);
    out[i] = x;
  }
  return out;
};

async function ecdsaSign(t: Queryable, sealer: Sealer, room: RoomRecord, { set, serverShareSealed, room: secrets }: Material) {
  const digest = String(room.request.digest ?? "").replace(/^0x/, "");
  if (!/^[0-9a-f]{64}$/i.test(digest)) throw unprocessable("invalid_digest", "a digest is 32 bytes of hex");
  const shares = await openShares(t, sealer, set, room, set.threshold, { serverShareSealed, roomKeySealed: secrets.keySealed });
  const sig = signDigestWithShares(publicOf(set), shares, hexToBytes(digest));
  const serialized = room.request.serialized as `0x${string}` | undefined;
  return {
    signature: sig.signature,
    r: sig.r,
    s: sig.s,
    v: 27 + sig.recovery,
    recovery: sig.recovery,
    ...(serialized ? { signedTransaction: signedEvmTransaction(serialized, { r: sig.r as `0x${string}`, s: sig.s as `0x${string}`, recovery: sig.recovery }) } : {}),
  };
}

async function frostSign(t: Queryable, sealer: Sealer, room: RoomRecord, { set, serverShareSealed, room: secrets }: Material) {
  if (!secrets.noncesSealed || !room.serverCommitments) throw conflict("room_closed", "the room's nonces were used");
  const message = hexToBytes(String(room.request.message ?? ""));
  const deviceCommitments = hexMap(room.contribution?.commitments, "commitments");
  const deviceShares = hexMap(room.contribution?.signatureShares, "signatureShares");
  const commitments = { ...deviceCommitments, [SERVER_HOLDER_INDEX]: room.serverCommitments[String(SERVER_HOLDER_INDEX)]! };
  if (Object.keys(commitments).length < set.threshold) throw unprocessable("not_enough_key_shares", `${set.threshold} signers are needed`);
  const pub = publicOf(set);
  const serverSigShare = frostSignShare("ed25519", pub, serverShareOf(sealer, set, serverShareSealed), sealer.open(secrets.noncesSealed, noncesAad(room.id)), commitments, message);
  const signature = frostAggregate("ed25519", pub, commitments, { ...deviceShares, [SERVER_HOLDER_INDEX]: serverSigShare }, message);
  const serialized = room.request.serialized as string | undefined;
  // A transaction is answered signed too: the wallet's address names its signature slot.
  const signedTransaction = serialized ? signedSolanaTransaction(serialized, (await thresholdWalletKey(t, room.environmentId, room.walletId!)).address, signature) : undefined;
  return { signature: base58.encode(signature), signatureHex: bytesToHex(signature), ...(signedTransaction ? { signedTransaction } : {}) };
}
