import { randomUUID } from "node:crypto";
import { keygenIdKey } from "../../../crypto/keygen-envelope.js";
import { SCHEMES } from "../../../crypto/threshold/shares.js";
import type { Queryable } from "../../../db/db.js";
import * as rooms from "../../../db/repositories/waas-rooms.js";
import { finishRoom } from "../../../db/repositories/waas-rooms.js";
import { setShares } from "../../../db/repositories/waas-share-sets.js";
import { DomainError, badRequest, conflict, unprocessable } from "../../../errors.js";
import type { Deps } from "../../deps.js";
import { auditContextOf, callerThresholdWallet, requireFreshFactor, type WaasCaller } from "./device-caller.js";
import { createWalletInRoom } from "./key-generation.js";
import { exportRunKey, nextExportAttempt } from "./export-ids.js";
import { errorOfRoom, openKeygenRoomOnce, openRoom, takeContribution, userRoom, type RoomRecord } from "./rooms.js";
import { commitSigningRound, signInRoom } from "./signing.js";
import type { RoomOperationName, WaasChain, WaasScheme } from "./share-operations.js";
import { prepareSigning } from "./device-signing.js";
import type { SignMessageInput } from "./device-signing.js";

/**
 * The published client's WaaS operations on the signed-in user's threshold wallets. Each opens a room
 * (src/domain/waas/threshold/rooms.ts) and answers `{roomId, serverKeygenIds, walletId}`; the device reads the room
 * and posts its part. Signatures and a wallet's first share set (keygen, import) are made in the request's
 * own transaction: they retire no share set, so they need no serialising with the wallet's other operations
 * (a signature holds its set FOR SHARE, src/domain/waas/threshold/signing.ts). Refresh, reshare and export
 * run on the wallet's actor (Deps.flows.runWaasRoom), one at a time. A wallet is found by the caller's
 * environment and user before any room opens or any actor is reached: another user's wallet, or another
 * environment's, answers 404 and starts nothing.
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

/** Runs the room's operation on the actor (refresh, reshare, export); a refusal is the operation's error, also kept in the room. */
async function run(deps: RoomDeps, caller: WaasCaller, room: RoomRecord): Promise<void> {
  await deps.flows.runWaasRoom({
    environmentId: room.environmentId,
    walletId: room.walletId!,
    userId: caller.principal.userId,
    roomId: room.id,
    operation: room.operation as RoomOperationName,
    ...(room.operation === "export" ? { exportId: exportRunKey(String(room.request.exportId), room.request.attempt) } : {}),
  });
}

/**
 * A request-path operation in one transaction: `take` finds or opens the room (its refusal changes nothing),
 * `operate` runs the operation on it. A refusal of the operation (DomainError) is kept in the room, which is
 * failed with it, and is thrown once that is committed; any other failure (the database, a crash) rolls
 * everything back and leaves the room as it was, so the same request can be made again. The room is never
 * left half-done. A new wallet's writes run under a savepoint, undone on a refusal (a duplicate address is
 * found by the insert itself); a signature writes only after its last check, so it needs none.
 */
async function inRoomTransaction(
  deps: RoomDeps,
  take: (t: Queryable) => Promise<RoomRecord>,
  operate: (t: Queryable, room: RoomRecord) => Promise<RoomRecord>,
): Promise<RoomRecord> {
  const outcome = await deps.db.tx(async (t) => {
    const room = await take(t);
    if (room.status === "done" || room.status === "failed") return room;
    try {
      const makesWallet = room.operation === "keygen" || room.operation === "import";
      return await (makesWallet ? t.tx((s) => operate(s, room)) : operate(t, room));
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const error = { kind: err.kind, code: err.code, message: err.message, ...(err.payload ? { payload: err.payload } : {}) };
      return finishRoom(t, room.environmentId, room.id, { error });
    }
  });
  if (outcome.error) throw errorOfRoom(outcome.error);
  return outcome;
}

interface NewWalletInput {
  chain: string;
  clientKeygenIds: string[];
  thresholdSignatureScheme?: string;
}

/** What a room for a wallet to be (keygen, import) holds: its chain, scheme and the device's keygen ids, checked. */
function newWalletRequest(caller: WaasCaller, input: NewWalletInput) {
  const chain = chainOf(input.chain);
  const scheme = schemeOf(input.thresholdSignatureScheme, "thresholdSignatureScheme");
  const ids = keygenIds(input.clientKeygenIds, scheme);
  return { environmentId: caller.env.environmentId, userId: caller.principal.userId, walletId: randomUUID(), request: { chain, scheme, clientKeygenIds: ids, audit: auditContextOf(caller) } };
}

/**
 * createWaasAccount: a new wallet's key is made and split at once, in the request's transaction with the
 * wallet rows, its current share set and the room's answer (the device reads its shares in the room). A
 * retried request (the same device keygen ids) answers the first request's room: one wallet.
 */
export async function createWaasAccount(deps: RoomDeps, caller: WaasCaller, input: NewWalletInput): Promise<OpenedRoom> {
  const room = newWalletRequest(caller, input);
  const done = await inRoomTransaction(
    deps,
    (t) => openKeygenRoomOnce(t, deps.sealer, room),
    (t, r) => createWalletInRoom(t, deps.sealer, r),
  );
  return opened(done);
}

/** importPrivateKey: the room waits for the key, which the device sends encrypted to the room's key. */
export async function importPrivateKey(deps: RoomDeps, caller: WaasCaller, input: NewWalletInput & { thresholdSignatureScheme: string }): Promise<OpenedRoom> {
  return opened(await openRoom(deps.db, deps.sealer, { ...newWalletRequest(caller, input), operation: "import" }));
}

/**
 * signMessage: the request is checked against the environment's WaaS policy first (403 with the rule that
 * denied it) and against the MFA settings (wallet.waas.sign); then a room opens with what is signed, against
 * the wallet's current share set. For Solana the server commits to its FROST nonces in the same transaction,
 * so the device can sign its share at once.
 */
export async function signMessage(deps: RoomDeps, caller: WaasCaller, walletId: string, input: SignMessageInput & { roomId?: string }): Promise<OpenedRoom> {
  const { chain, set } = await callerWallet(deps, caller, walletId);
  await requireFreshFactor(deps, caller, "wallet.waas.sign");
  const signing = await prepareSigning(deps, caller.env.environmentId, chain, input);
  const request = { ...signing, audit: auditContextOf(caller) };
  const env = caller.env.environmentId;
  const open = async (t: Queryable): Promise<RoomRecord> => {
    if (!input.roomId) return openRoom(t, deps.sealer, { environmentId: env, userId: caller.principal.userId, walletId, operation: "sign", request, shareSetId: set.id });
    const taken = await rooms.takeReservedRoom(t, env, caller.principal.userId, input.roomId, { walletId, operation: "sign", request, shareSetId: set.id });
    if (!taken) throw conflict("room_closed", "the room is not a reserved room of this wallet that is still open");
    return taken;
  };
  if (chain === "EVM") return opened(await open(deps.db));
  return opened(
    await deps.db.tx(async (t) => {
      const room = await open(t);
      await commitSigningRound(t, deps.sealer, room);
      return room;
    }),
  );
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
  const open = (attempt?: number) =>
    openRoom(deps.db, deps.sealer, {
      environmentId: caller.env.environmentId,
      userId: caller.principal.userId,
      walletId,
      operation: "export",
      request: { exportId, ...(attempt ? { attempt } : {}), audit: auditContextOf(caller) },
      shareSetId: set.id,
    });
  const taken = (err: unknown) => (err as { code?: string }).code === "23505";
  const exists = () => conflict("export_exists", "this export id was used already: every export has its own id");
  try {
    return opened(await open());
  } catch (err) {
    if (!taken(err)) throw err;
  }
  // Held by an export that failed: the id is freed and this is its next try (./export-ids.ts).
  const attempt = await nextExportAttempt(deps.db, caller.env.environmentId, walletId, exportId);
  if (attempt === null) throw exists();
  try {
    return opened(await open(attempt));
  } catch (err) {
    throw taken(err) ? exists() : err;
  }
}

/** createRooms / createRoomsWithoutWalletId: rooms reserved ahead, which a signMessage afterwards names. */
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
 * The device's part, taken once. A signature or an import is made in the same transaction and the finished
 * room answered; refresh, reshare and export then run on the wallet's actor. A refused operation answers its
 * error (the room keeps it too).
 */
export async function contribute(deps: RoomDeps, caller: WaasCaller, roomId: string, contribution: Record<string, unknown>): Promise<RoomRecord> {
  const env = caller.env.environmentId;
  let onActor = false;
  const room = await inRoomTransaction(
    deps,
    (t) => takeContribution(t, env, caller.principal.userId, roomId, contribution),
    async (t, r) => {
      if (r.operation === "sign") return signInRoom(t, deps.sealer, r);
      if (r.operation === "import") return createWalletInRoom(t, deps.sealer, r);
      onActor = true;
      return r;
    },
  );
  if (!onActor) return room;
  // A retried post of a room whose run already finished (./contribution-retry.ts) answers its outcome.
  if (room.status === "contributed") await run(deps, caller, room);
  const done = await userRoom(deps.db, env, caller.principal.userId, roomId);
  if (done.error) throw errorOfRoom(done.error);
  return done;
}
