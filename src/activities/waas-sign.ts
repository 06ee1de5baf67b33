import { base58 } from "@scure/base";
import { bytesToHex, hexToBytes } from "@noble/curves/utils.js";
import { finishRoom, roomSecrets, setRoomCommitments } from "../db/repositories/waas-rooms.js";
import { currentSet, type ShareSetRecord } from "../db/repositories/waas-share-sets.js";
import { serverShareSealed, thresholdWalletKey } from "../db/repositories/waas-threshold-wallets.js";
import { signedSolanaTransaction } from "../domain/waas/sign-request-svm.js";
import { signedEvmTransaction } from "../domain/waas/sign-request.js";
import type { Queryable } from "../db/db.js";
import { signDigestWithShares } from "../crypto/threshold/ecdsa.js";
import { frostAggregate, frostCommit, frostSignShare } from "../crypto/threshold/frost.js";
import { recordChange } from "../domain/audit/audit.js";
import type { RoomRecord } from "../domain/waas/threshold/rooms.js";
import { badRequest, conflict, notFound, unprocessable } from "../errors.js";
import type { WaasActivityDeps } from "./waas.js";
import { SERVER_HOLDER_INDEX, failFast, openShares, publicOf, roomAccess, roomFor, serverShareAad } from "./waas-shares.js";

/**
 * Signing activities of the WaaS wallet actor. EVM (ECDSA): no usable open threshold-ECDSA library exists
 * (docs/decisions.md), so the server's share and the device's (sent into the room encrypted to its key) are
 * combined in this activity's memory only, used and wiped. Solana (ed25519) signs with FROST (RFC 9591) and
 * the key is never rebuilt: the server commits to its nonces when the room opens (commitRoomSign), the device
 * answers with its commitments and signature shares, and signRoom adds the server's share and aggregates.
 */

const noncesAad = (roomId: string) => `waas-room-nonces:${roomId}`;

/** The current set, which must be the one the room was opened against. */
async function roomSet(q: Queryable, room: RoomRecord): Promise<ShareSetRecord> {
  const cur = await currentSet(q, room.environmentId, room.walletId!);
  if (!cur) throw notFound("wallet");
  if (room.shareSetId && room.shareSetId !== cur.id) throw conflict("room_stale", "the wallet's key shares changed after this room opened: open a new one");
  return cur;
}

async function serverShare(q: Queryable, deps: WaasActivityDeps, set: ShareSetRecord) {
  const sealed = await serverShareSealed(q, set.environmentId, set.id, SERVER_HOLDER_INDEX);
  if (!sealed) throw unprocessable("server_share_missing", "the server's key share of this wallet is gone: recover it from a backup");
  return { index: SERVER_HOLDER_INDEX, value: deps.sealer.open(sealed, serverShareAad(set.id, SERVER_HOLDER_INDEX)) };
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

export function createWaasSignActivities(deps: WaasActivityDeps) {
  return {
    /** FROST round 1 for the server: commitments published in the room, nonces sealed in it (once). */
    async commitRoomSign(input: { environmentId: string; walletId: string; roomId: string }): Promise<void> {
      return failFast(() =>
        deps.db.tx(async (t) => {
          const room = await roomFor(t, input.environmentId, input.walletId, input.roomId, ["sign"]);
          if (room.serverCommitments) return;
          const set = await roomSet(t, room);
          const { nonces, commitments } = frostCommit("ed25519", publicOf(set), await serverShare(t, deps, set));
          await setRoomCommitments(t, input.environmentId, input.roomId, {
            shareSetId: set.id,
            commitments: { [SERVER_HOLDER_INDEX]: commitments },
            noncesSealed: deps.sealer.seal(nonces, noncesAad(input.roomId)),
          });
        }),
      );
    },

    /** Signs the room's digest or message with the current set; the signature goes into the room, audited. */
    async signRoom(input: { environmentId: string; walletId: string; roomId: string }): Promise<void> {
      return failFast(() =>
        deps.db.tx(async (t) => {
          const room = await roomFor(t, input.environmentId, input.walletId, input.roomId, ["sign"]);
          if (room.status === "done") return;
          if (room.status !== "contributed") throw conflict("room_closed", "the room is not waiting to sign");
          const set = await roomSet(t, room);
          const result = room.request.scheme === "frost-ed25519" ? await frostSign(t, deps, room, set) : await ecdsaSign(t, deps, room, set);
          await finishRoom(t, input.environmentId, input.roomId, { result });
          await recordChange(t, roomAccess(room), {
            action: "waas_wallet.message_signed",
            resourceType: "waas_wallet",
            resourceId: input.walletId,
            after: { userId: room.userId, kind: room.request.kind, roomId: room.id },
          });
        }),
      );
    },
  };
}

async function ecdsaSign(t: Queryable, deps: WaasActivityDeps, room: RoomRecord, set: ShareSetRecord) {
  const digest = String(room.request.digest ?? "").replace(/^0x/, "");
  if (!/^[0-9a-f]{64}$/i.test(digest)) throw unprocessable("invalid_digest", "a digest is 32 bytes of hex");
  const shares = await openShares(t, deps.sealer, set, room, set.threshold);
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

async function frostSign(t: Queryable, deps: WaasActivityDeps, room: RoomRecord, set: ShareSetRecord) {
  const secrets = await roomSecrets(t, room.environmentId, room.id);
  if (!secrets?.serverNoncesSealed || !room.serverCommitments) throw conflict("room_closed", "the room's nonces were used");
  const message = hexToBytes(String(room.request.message ?? ""));
  const deviceCommitments = hexMap(room.contribution?.commitments, "commitments");
  const deviceShares = hexMap(room.contribution?.signatureShares, "signatureShares");
  const commitments = { ...deviceCommitments, [SERVER_HOLDER_INDEX]: room.serverCommitments[String(SERVER_HOLDER_INDEX)]! };
  if (Object.keys(commitments).length < set.threshold) throw unprocessable("not_enough_key_shares", `${set.threshold} signers are needed`);
  const pub = publicOf(set);
  const serverSigShare = frostSignShare("ed25519", pub, await serverShare(t, deps, set), deps.sealer.open(secrets.serverNoncesSealed, noncesAad(room.id)), commitments, message);
  const signature = frostAggregate("ed25519", pub, commitments, { ...deviceShares, [SERVER_HOLDER_INDEX]: serverSigShare }, message);
  const serialized = room.request.serialized as string | undefined;
  // A transaction is answered signed too: the wallet's address names its signature slot.
  const signedTransaction = serialized ? signedSolanaTransaction(serialized, (await thresholdWalletKey(t, room.environmentId, room.walletId!)).address, signature) : undefined;
  return { signature: base58.encode(signature), signatureHex: bytesToHex(signature), ...(signedTransaction ? { signedTransaction } : {}) };
}
