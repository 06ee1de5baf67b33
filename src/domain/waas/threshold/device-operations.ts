import { randomUUID } from "node:crypto";
import { keygenIdKey } from "../../../crypto/keygen-envelope.js";
import { SCHEMES } from "../../../crypto/threshold/shares.js";
import * as rooms from "../../../db/repositories/waas-rooms.js";
import { setShares } from "../../../db/repositories/waas-share-sets.js";
import { badRequest, conflict, unprocessable } from "../../../errors.js";
import type { Deps } from "../../deps.js";
import { auditContextOf, callerThresholdWallet, requireFreshFactor, type WaasCaller } from "./device-caller.js";
import { errorOfRoom, openRoom, takeContribution, userRoom, type RoomRecord } from "./rooms.js";
import type { RoomOperationName, WaasChain, WaasScheme } from "./share-operations.js";
import { prepareSigning } from "./device-signing.js";
import type { SignMessageInput } from "./device-signing.js";

/**
 * The published client's WaaS operations on the signed-in user's threshold wallets. Each opens a room
 * (src/domain/waas/threshold/rooms.ts) and answers `{roomId, serverKeygenIds, walletId}`; the device reads the room
 * and posts its part, and the wallet's actor runs the operation (Deps.flows.runWaasRoom). A wallet is
 * found by the caller's environment and user before any room opens or any actor is reached: another
 * user's wallet, or another environment's, answers 404 and starts nothing.
 */

type RoomDeps = Pick<Deps, "db" | "sealer" | "flows" | "store" | "sessionKeys">;

export interface OpenedRoom {
  roomId: string;
  walletId: string;
  serverKeygenIds: string[];
}

const opened = (room: RoomRecord): OpenedRoom => ({ roomId: room.id, walletId: room.walletId ?? "", serverKeygenIds: [room.serverKeygenId] });


/** The client's chain name as the wallet's (SVM is Solana); 422 for chains threshold wallets do not have. */
function chainOf(chain: string): WaasChain {
  if (chain === "EVM") return "EVM";
  if (chain === "SVM" || chain === "SOL") return "SOL";
  throw unprocessable("unsupported_chain", `threshold wallets are EVM or SVM, not ${chain}`);
}

function schemeOf(scheme: string | undefined, field: string): WaasScheme {
  const s = scheme || "TWO_OF_TWO";
  if (!(s in SCHEMES)) throw badRequest("invalid_threshold_signature_scheme", `${field} must be TWO_OF_TWO, TWO_OF_THREE or THREE_OF_FIVE`, { field });
  return s as WaasScheme;
}

/** One valid, distinct keygen id per share the device keeps (the scheme's holders but the server). */
function keygenIds(ids: string[], scheme: WaasScheme): string[] {
  const needed = SCHEMES[scheme].holders - 1;
  if (ids.length !== needed) throw badRequest("invalid_keygen_ids", `${scheme} needs ${needed} client keygen ids, one per share the device keeps`, { field: "clientKeygenIds" });
  if (new Set(ids).size !== ids.length) throw badRequest("invalid_keygen_ids", "client keygen ids must differ", { field: "clientKeygenIds" });
  ids.forEach(keygenIdKey);
  return ids;
}

/** The caller's wallet (404 otherwise) with its chain and current share set. */
const callerWallet = async (deps: RoomDeps, caller: WaasCaller, walletId: string) => {
  const { wallet, set } = await callerThresholdWallet(deps, caller, walletId);
  return { chain: wallet.chain, set };
};

/** Runs the room's operation on the actor; a refusal is the operation's error, also kept in the room. */
async function run(deps: RoomDeps, caller: WaasCaller, room: RoomRecord, step: "run" | "commit" = "run"): Promise<void> {
  await deps.flows.runWaasRoom({
    environmentId: room.environmentId,
    walletId: room.walletId!,
    userId: caller.principal.userId,
    roomId: room.id,
    operation: room.operation as RoomOperationName,
    ...(room.operation === "export" ? { exportId: String(room.request.exportId) } : {}),
    step,
  });
}

interface NewWalletInput {
  chain: string;
  clientKeygenIds: string[];
  thresholdSignatureScheme?: string;
}

/** A room for a wallet to be (keygen, import): its chain, scheme and the device's keygen ids checked first. */
function openNewWalletRoom(deps: RoomDeps, caller: WaasCaller, operation: "keygen" | "import", input: NewWalletInput): Promise<RoomRecord> {
  const chain = chainOf(input.chain);
  const scheme = schemeOf(input.thresholdSignatureScheme, "thresholdSignatureScheme");
  const ids = keygenIds(input.clientKeygenIds, scheme);
  return openRoom(deps.db, deps.sealer, {
    environmentId: caller.env.environmentId,
    userId: caller.principal.userId,
    walletId: randomUUID(),
    operation,
    request: { chain, scheme, clientKeygenIds: ids, audit: auditContextOf(caller) },
  });
}

/** createWaasAccount: a new wallet's key is made and split at once; the device reads its shares in the room. */
export async function createWaasAccount(deps: RoomDeps, caller: WaasCaller, input: NewWalletInput): Promise<OpenedRoom> {
  const room = await openNewWalletRoom(deps, caller, "keygen", input);
  await run(deps, caller, room);
  return opened(room);
}

/** importPrivateKey: the room waits for the key, which the device sends encrypted to the room's key. */
export async function importPrivateKey(deps: RoomDeps, caller: WaasCaller, input: NewWalletInput & { thresholdSignatureScheme: string }): Promise<OpenedRoom> {
  return opened(await openNewWalletRoom(deps, caller, "import", input));
}

/**
 * signMessage: the request is checked against the environment's WaaS policy first (403 with the rule that
 * denied it) and against the MFA settings (wallet.waas.sign); then a room opens with what is signed. For
 * Solana the server commits to its FROST nonces before answering, so the device can sign its share at once.
 */
export async function signMessage(deps: RoomDeps, caller: WaasCaller, walletId: string, input: SignMessageInput & { roomId?: string }): Promise<OpenedRoom> {
  const { chain, set } = await callerWallet(deps, caller, walletId);
  await requireFreshFactor(deps, caller, "wallet.waas.sign");
  const signing = await prepareSigning(deps, caller.env.environmentId, chain, input);
  const request = { ...signing, audit: auditContextOf(caller) };
  const env = caller.env.environmentId;
  let room: RoomRecord;
  if (input.roomId) {
    const taken = await rooms.takeReservedRoom(deps.db, env, caller.principal.userId, input.roomId, { walletId, operation: "sign", request, shareSetId: set.id });
    if (!taken) throw conflict("room_closed", "the room is not a reserved room of this wallet that is still open");
    room = taken;
  } else {
    room = await openRoom(deps.db, deps.sealer, { environmentId: env, userId: caller.principal.userId, walletId, operation: "sign", request, shareSetId: set.id });
  }
  if (chain === "SOL") await run(deps, caller, room, "commit");
  return opened(room);
}

/** refreshKeyShares: new shares of the same key, to the keygen ids the device already has. */
export async function refreshKeyShares(deps: RoomDeps, caller: WaasCaller, walletId: string): Promise<OpenedRoom> {
  const { set } = await callerWallet(deps, caller, walletId);
  await requireFreshFactor(deps, caller, "wallet.waas.refresh");
  const held = (await setShares(deps.db, caller.env.environmentId, set.id)).filter((s) => s.holderKeygenId).map((s) => s.holderKeygenId!);
  const room = await openRoom(deps.db, deps.sealer, {
    environmentId: caller.env.environmentId,
    userId: caller.principal.userId,
    walletId,
    operation: "refresh",
    request: { clientKeygenIds: held, audit: auditContextOf(caller) },
    shareSetId: set.id,
  });
  return opened(room);
}

/** reshare: the same key under a new scheme, to the device's new keygen ids. */
export async function reshare(
  deps: RoomDeps,
  caller: WaasCaller,
  walletId: string,
  input: { clientKeygenIds: string[]; oldThresholdSignatureScheme: string; newThresholdSignatureScheme: string },
): Promise<OpenedRoom & { newServerKeygenIds: string[] }> {
  const { set } = await callerWallet(deps, caller, walletId);
  const oldScheme = schemeOf(input.oldThresholdSignatureScheme, "oldThresholdSignatureScheme");
  const newScheme = schemeOf(input.newThresholdSignatureScheme, "newThresholdSignatureScheme");
  if (SCHEMES[oldScheme].threshold !== set.threshold || SCHEMES[oldScheme].holders !== set.holders) {
    throw unprocessable("scheme_mismatch", `the wallet's shares are ${set.threshold}-of-${set.holders}, not ${oldScheme}`);
  }
  const ids = keygenIds(input.clientKeygenIds, newScheme);
  await requireFreshFactor(deps, caller, "wallet.waas.reshare");
  const room = await openRoom(deps.db, deps.sealer, {
    environmentId: caller.env.environmentId,
    userId: caller.principal.userId,
    walletId,
    operation: "reshare",
    request: { oldScheme, newScheme, clientKeygenIds: ids, audit: auditContextOf(caller) },
    shareSetId: set.id,
  });
  // The server keeps one share in the new set too, under the room's key.
  return { ...opened(room), newServerKeygenIds: [room.serverKeygenId] };
}

/**
 * exportPrivateKey: one export per export id, ever (409 export_exists), after a fresh second factor or a
 * recent sign-in (requireFreshFactor, wallet.waas.export). The device sends its shares and a one-time P-256
 * public key into the room; the key comes back as a JWE to that key.
 */
export async function exportPrivateKey(deps: RoomDeps, caller: WaasCaller, walletId: string, input: { exportId: string }): Promise<OpenedRoom> {
  const { set } = await callerWallet(deps, caller, walletId);
  const exportId = input.exportId.trim();
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(exportId)) throw badRequest("invalid_export_id", "exportId is 1 to 100 letters, digits, - or _", { field: "exportId" });
  await requireFreshFactor(deps, caller, "wallet.waas.export", { recentSignIn: true });
  try {
    const room = await openRoom(deps.db, deps.sealer, {
      environmentId: caller.env.environmentId,
      userId: caller.principal.userId,
      walletId,
      operation: "export",
      request: { exportId, audit: auditContextOf(caller) },
      shareSetId: set.id,
    });
    return opened(room);
  } catch (err) {
    if ((err as { code?: string }).code === "23505") throw conflict("export_exists", "this export id was used already: every export has its own id");
    throw err;
  }
}

/** createRooms / createRoomsWithoutWalletId: rooms reserved ahead, which a later signMessage names. */
export async function reserveRooms(deps: RoomDeps, caller: WaasCaller, input: { walletId: string | null; roomType: string; roomCount?: number; thresholdSignatureScheme?: string }): Promise<string[]> {
  if (input.roomType !== "threshold" && input.roomType !== "full") throw badRequest("invalid_room_type", "roomType must be threshold or full", { field: "roomType" });
  if (input.walletId) await callerWallet(deps, caller, input.walletId);
  if (input.thresholdSignatureScheme !== undefined) schemeOf(input.thresholdSignatureScheme, "thresholdSignatureScheme");
  const count = input.roomCount ?? 1;
  if (!Number.isInteger(count) || count < 1 || count > 10) throw badRequest("invalid_room_count", "roomCount is 1 to 10", { field: "roomCount" });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const room = await openRoom(deps.db, deps.sealer, {
      environmentId: caller.env.environmentId,
      userId: caller.principal.userId,
      walletId: input.walletId,
      operation: "reserved",
      request: { roomType: input.roomType },
    });
    ids.push(room.id);
  }
  return ids;
}

/** The caller's room, as the device reads it. */
export async function readRoom(deps: RoomDeps, caller: WaasCaller, roomId: string): Promise<RoomRecord> {
  return userRoom(deps.db, caller.env.environmentId, caller.principal.userId, roomId);
}

/**
 * The device's part: taken once, then the operation runs on the wallet's actor and the finished room is
 * answered. A refused operation answers its error (the room keeps it too).
 */
export async function contribute(deps: RoomDeps, caller: WaasCaller, roomId: string, contribution: Record<string, unknown>): Promise<RoomRecord> {
  const env = caller.env.environmentId;
  const room = await takeContribution(deps.db, env, caller.principal.userId, roomId, contribution);
  await run(deps, caller, room);
  const done = await userRoom(deps.db, env, caller.principal.userId, roomId);
  if (done.error) throw errorOfRoom(done.error);
  return done;
}
