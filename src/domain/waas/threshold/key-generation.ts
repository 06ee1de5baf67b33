import { bytesToHex, hexToBytes } from "@noble/curves/utils.js";
import type { Sealer } from "../../../crypto/seal.js";
import { addressOf, importedSecret, newWalletSecret } from "../../../crypto/threshold/keys.js";
import { SCHEMES, groupPublicKey, splitSecret, type KeyShare, type ShareSetPublic } from "../../../crypto/threshold/shares.js";
import type { Queryable } from "../../../db/db.js";
import type { ShareSetRecord } from "../../../db/repositories/waas-share-sets.js";
import { insertThresholdWallet, walletIdTaken } from "../../../db/repositories/waas-threshold-wallets.js";
import { insertWallet } from "../../../db/repositories/wallets.js";
import { conflict, unprocessable } from "../../../errors.js";
import { openRoomParts, type RoomRecord } from "./rooms.js";
import { CURVES, answerShareSetRoom, keygenIdsOf, writeFirstSet, writePendingSet } from "./share-sets.js";
import type { WaasChain, WaasScheme } from "./share-operations.js";

/**
 * A wallet's first share set: a new key (keygen) or the device's key (import), split at once, the whole key
 * wiped; the wallet rows (the threshold wallet, the user's verified credential) are written with it. There is
 * no previous set to retire, so nothing needs the wallet's actor: the request's own transaction writes the
 * wallet, its current set and the room's answer together, or nothing.
 */

/** The wallet as the client's verified credential shows it (the wallets row has the WaaS wallet's id). */
const WAAS_WALLET_NAME = "dynamicwaas";

/**
 * The room's new wallet with its first set: pending (an actor's keygen step, which promotes it next) or
 * current at once (the request path). 409 wallet_exists when the id is taken.
 */
export async function writeNewWalletSet(t: Queryable, sealer: Sealer, room: RoomRecord, operationId: string, status: "pending" | "current" = "pending"): Promise<ShareSetRecord> {
  if (await walletIdTaken(t, room.walletId!)) throw conflict("wallet_exists", "the wallet already has a key");
  const chain = room.request.chain as WaasChain;
  const { threshold, holders } = SCHEMES[room.request.scheme as WaasScheme];
  const keygenIds = keygenIdsOf(room, holders);
  const curve = CURVES[chain];
  const secret = room.operation === "keygen" ? newWalletSecret(curve) : await importedKey(t, sealer, room, curve);
  let split: { public: ShareSetPublic; shares: KeyShare[] };
  try {
    split = splitSecret(curve, secret, threshold, holders);
  } finally {
    secret.fill(0);
  }
  await insertWalletRows(t, room, chain, split.public);
  return (status === "current" ? writeFirstSet : writePendingSet)(t, sealer, room, operationId, split, keygenIds);
}

/**
 * Keygen or import in the caller's transaction: the wallet, its first set (current at once), and the room's
 * answer with its audit row and event. The operation id is the room's, as the actor's Update id was.
 */
export async function createWalletInRoom(t: Queryable, sealer: Sealer, room: RoomRecord): Promise<RoomRecord> {
  return answerShareSetRoom(t, room, await writeNewWalletSet(t, sealer, room, `${room.operation}:${room.id}`, "current"));
}

/** The imported key the device sent in the room (a JWE to the room's key, hex inside), as the secret to split. */
async function importedKey(t: Queryable, sealer: Sealer, room: RoomRecord, curve: (typeof CURVES)[WaasChain]): Promise<Uint8Array> {
  const [opened] = await openRoomParts(t, sealer, room, [{ part: "privateKey", jwe: room.contribution?.privateKey }]);
  let bytes: Uint8Array;
  try {
    bytes = hexToBytes(new TextDecoder().decode(opened).replace(/^0x/, ""));
  } catch {
    throw unprocessable("invalid_private_key", "the imported key is not hex");
  } finally {
    opened!.fill(0);
  }
  try {
    return importedSecret(curve, bytes);
  } finally {
    bytes.fill(0);
  }
}

/** The wallet rows: the threshold wallet (no whole key) and the user's verified credential for it. */
async function insertWalletRows(t: Queryable, room: RoomRecord, chain: WaasChain, pub: ShareSetPublic): Promise<void> {
  const publicKey = bytesToHex(groupPublicKey(pub));
  const address = addressOf(pub.curve, groupPublicKey(pub));
  try {
    await insertThresholdWallet(t, room.environmentId, { id: room.walletId!, userId: room.userId, chain, address, publicKey });
    await insertWallet(t, room.environmentId, room.userId, {
      id: room.walletId!,
      name: WAAS_WALLET_NAME,
      chain,
      address,
      provider: "embeddedWallet",
      properties: { version: "V3", thresholdSignatureScheme: room.request.scheme, publicKey },
    });
  } catch (err) {
    // An imported key already in use in this environment: the same address twice would be two owners.
    if ((err as { code?: string }).code === "23505") throw conflict("wallet_exists", "a wallet with this address already exists in this environment");
    throw err;
  }
}
