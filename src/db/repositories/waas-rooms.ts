import { prepared, type Queryable } from "../db.js";
import { auditRowsParams, auditsWithEventsCtes, type AuditWithEvent } from "./audit.js";

/**
 * Rooms of threshold WaaS wallets (migration 033). Every function is scoped by environment; the room's
 * sealed key and nonces are read only by `roomSecrets` and, with the share set a signature locks, by
 * `lockSetForSigning` (./waas-share-sets.ts).
 */

export type RoomOperation = "reserved" | "keygen" | "import" | "sign" | "refresh" | "reshare" | "export";
export type RoomStatus = "open" | "contributed" | "done" | "failed";

export interface RoomRecord {
  id: string;
  environmentId: string;
  userId: string;
  /** Null only for a room reserved ahead without a wallet. */
  walletId: string | null;
  operation: RoomOperation;
  status: RoomStatus;
  request: Record<string, unknown>;
  serverKeygenId: string;
  shareSetId: string | null;
  serverCommitments: Record<string, string> | null;
  contribution: Record<string, unknown> | null;
  result: Record<string, unknown> | null;
  error: { kind: string; code: string; message: string; payload?: unknown } | null;
  createdAt: Date;
  expiresAt: Date;
}

const COLUMNS = `id, environment_id, user_id, wallet_id, operation, status, request, server_keygen_id, share_set_id,
  server_commitments, contribution, result, error, created_at, expires_at`;

export async function insertRoom(
  q: Queryable,
  room: {
    id: string;
    environmentId: string;
    userId: string;
    walletId: string | null;
    operation: RoomOperation;
    request: Record<string, unknown>;
    serverKeygenId: string;
    serverKeySealed: string;
    shareSetId?: string | null;
    ttlSeconds: number;
    /** The user's rooms expired longer ago than this go in the same statement (see clearExpired). */
    keepSeconds: number;
  },
): Promise<RoomRecord> {
  return q.one(
    INSERT_ROOM([room.id, room.environmentId, room.userId, room.walletId, room.operation, room.request, room.serverKeygenId, room.serverKeySealed, room.shareSetId ?? null, room.ttlSeconds, room.keepSeconds]),
    undefined,
    toRoom,
  );
}

/**
 * The user's rooms expired more than `keepSeconds` ago, deleted as a part of opening a new one (one statement,
 * not two). Export rooms stay: they are the record that an export id was used (one export per id, ever).
 */
const clearExpired = (environmentId: string, userId: string, keepSeconds: string) =>
  `cleared AS (DELETE FROM waas_rooms WHERE environment_id = ${environmentId} AND user_id = ${userId} AND operation <> 'export'
     AND expires_at < now() - make_interval(secs => ${keepSeconds}))`;

// Every signature opens a room: planned once per connection.
const INSERT_ROOM = prepared(
  "insert-room",
  `WITH ${clearExpired("$2", "$3", "$11")}
   INSERT INTO waas_rooms (id, environment_id, user_id, wallet_id, operation, request, server_keygen_id, server_key_sealed, share_set_id, expires_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(secs => $10))
   RETURNING ${COLUMNS}`,
);

/**
 * A keygen room, unless this user already has one for the same device keygen ids (a retried request): then
 * null, and findKeygenRoom answers the first. A concurrent duplicate waits for the first's transaction.
 */
export async function insertKeygenRoomOnce(q: Queryable, room: Parameters<typeof insertRoom>[1]): Promise<RoomRecord | null> {
  return q.oneOrNone(
    `WITH ${clearExpired("$2", "$3", "$9")}
     INSERT INTO waas_rooms (id, environment_id, user_id, wallet_id, operation, request, server_keygen_id, server_key_sealed, share_set_id, expires_at)
     VALUES ($1, $2, $3, $4, 'keygen', $5, $6, $7, NULL, now() + make_interval(secs => $8))
     ON CONFLICT DO NOTHING
     RETURNING ${COLUMNS}`,
    [room.id, room.environmentId, room.userId, room.walletId, room.request, room.serverKeygenId, room.serverKeySealed, room.ttlSeconds, room.keepSeconds],
    (r) => (r ? toRoom(r) : null),
  );
}

/** The user's keygen room for these device keygen ids (migration 039: one per user and keygen ids). */
export async function findKeygenRoom(q: Queryable, environmentId: string, userId: string, clientKeygenIds: string[]): Promise<RoomRecord | null> {
  return q.oneOrNone(
    `SELECT ${COLUMNS} FROM waas_rooms WHERE environment_id = $1 AND user_id = $2 AND operation = 'keygen' AND request -> 'clientKeygenIds' = $3::jsonb`,
    [environmentId, userId, JSON.stringify(clientKeygenIds)],
    (r) => (r ? toRoom(r) : null),
  );
}

export async function findRoom(q: Queryable, environmentId: string, roomId: string): Promise<RoomRecord | null> {
  return q.oneOrNone(`SELECT ${COLUMNS} FROM waas_rooms WHERE environment_id = $1 AND id = $2`, [environmentId, roomId], (r) => (r ? toRoom(r) : null));
}

const TAKE_RESERVED_ROOM = prepared(
  "take-reserved-room",
  `UPDATE waas_rooms SET operation = $5, wallet_id = $4, request = request || $6, share_set_id = $7
     WHERE environment_id = $1 AND user_id = $2 AND id = $3 AND operation = 'reserved' AND status = 'open' AND expires_at > now()
       AND (wallet_id IS NULL OR wallet_id = $4)
     RETURNING ${COLUMNS}`,
);

/**
 * Gives a reserved room (createRooms) its operation: only an open, unexpired room of this user, reserved for
 * this wallet or for none. Null when there is no such room.
 */
export async function takeReservedRoom(
  q: Queryable,
  environmentId: string,
  userId: string,
  roomId: string,
  op: { walletId: string; operation: RoomOperation; request: Record<string, unknown>; shareSetId: string | null },
): Promise<RoomRecord | null> {
  return q.oneOrNone(TAKE_RESERVED_ROOM([environmentId, userId, roomId, op.walletId, op.operation, op.request, op.shareSetId]), undefined, (r) => (r ? toRoom(r) : null));
}

const ROOM_SECRETS = prepared(
  "room-secrets",
  "SELECT server_key_sealed, server_nonces_sealed FROM waas_rooms WHERE environment_id = $1 AND id = $2",
);

/** The room's sealed private key and FROST nonces (the activities open them). */
export async function roomSecrets(q: Queryable, environmentId: string, roomId: string): Promise<{ serverKeySealed: string; serverNoncesSealed: string | null } | null> {
  return q.oneOrNone(ROOM_SECRETS([environmentId, roomId]), undefined, (r) => (r ? { serverKeySealed: r.server_key_sealed, serverNoncesSealed: r.server_nonces_sealed } : null));
}

/** The server's FROST round 1 for a signing room: its commitments (public) and nonces (sealed), once. */
export async function setRoomCommitments(
  q: Queryable,
  environmentId: string,
  roomId: string,
  round: { shareSetId: string; commitments: Record<string, string>; noncesSealed: string },
): Promise<boolean> {
  const r = await q.result(
    `UPDATE waas_rooms SET share_set_id = $3, server_commitments = $4, server_nonces_sealed = $5
     WHERE environment_id = $1 AND id = $2 AND server_commitments IS NULL AND status = 'open'`,
    [environmentId, roomId, round.shareSetId, round.commitments, round.noncesSealed],
  );
  return r.rowCount === 1;
}

const CONTRIBUTE_TO_ROOM = prepared(
  "contribute-to-room",
  `UPDATE waas_rooms SET status = 'contributed', contribution = $4, contributed_at = now()
     WHERE environment_id = $1 AND user_id = $2 AND id = $3 AND status = 'open' AND expires_at > now()
     RETURNING ${COLUMNS}`,
);

/**
 * Takes the device's one contribution: only an open, unexpired room of this user moves to 'contributed'.
 * Of two concurrent posts exactly one finds the room open.
 */
export async function contribute(q: Queryable, environmentId: string, userId: string, roomId: string, contribution: Record<string, unknown>): Promise<RoomRecord | null> {
  return q.oneOrNone(CONTRIBUTE_TO_ROOM([environmentId, userId, roomId, contribution]), undefined, (r) => (r ? toRoom(r) : null));
}

/**
 * Frees an export id held by a failed export room of the wallet: the room keeps its record under
 * `releasedExportId`. Returns how many failed exports of this id were released so far (0: the id is held
 * by an export that finished or is under way, and stays taken).
 */
export async function releaseFailedExportId(q: Queryable, environmentId: string, walletId: string, exportId: string): Promise<number> {
  await q.none(
    `UPDATE waas_rooms SET request = (request - 'exportId') || jsonb_build_object('releasedExportId', request ->> 'exportId')
     WHERE environment_id = $1 AND wallet_id = $2 AND operation = 'export' AND status = 'failed' AND request ->> 'exportId' = $3`,
    [environmentId, walletId, exportId],
  );
  return q.one(
    `SELECT count(*)::int AS n FROM waas_rooms
     WHERE environment_id = $1 AND wallet_id = $2 AND operation = 'export' AND request ->> 'releasedExportId' = $3
       AND NOT EXISTS (SELECT 1 FROM waas_rooms h WHERE h.environment_id = $1 AND h.wallet_id = $2 AND h.operation = 'export' AND h.request ->> 'exportId' = $3)`,
    [environmentId, walletId, exportId],
    (r) => r.n as number,
  );
}

/** A room still 'contributed' staleSeconds after its contribution, with what is needed to run it again. */
export interface StaleRoom {
  id: string;
  environmentId: string;
  userId: string;
  walletId: string;
  operation: RoomOperation;
  exportId: string | null;
  /** The export's attempt under its id (after failed ones released it), when above 1. */
  exportAttempt: number | null;
}

/**
 * Rooms of every environment whose contribution was taken more than staleSeconds ago and that have no outcome
 * yet, oldest first (the room reconciler's work; each is then acted on in its own environment).
 */
export async function listStaleRooms(q: Queryable, staleSeconds: number, limit: number): Promise<StaleRoom[]> {
  return q.map(
    `SELECT id, environment_id, user_id, wallet_id, operation, request ->> 'exportId' AS export_id, (request ->> 'attempt')::int AS attempt FROM waas_rooms
     WHERE status = 'contributed' AND contributed_at < now() - make_interval(secs => $1) AND wallet_id IS NOT NULL
     ORDER BY contributed_at LIMIT $2`,
    [staleSeconds, limit],
    (r) => ({ id: r.id, environmentId: r.environment_id, userId: r.user_id, walletId: r.wallet_id, operation: r.operation, exportId: r.export_id, exportAttempt: r.attempt }),
  );
}

/** How many rooms are stale (as listStaleRooms), and the age in seconds of the oldest contribution among them. */
export async function countStaleRooms(q: Queryable, staleSeconds: number): Promise<{ count: number; oldestSeconds: number }> {
  return q.one(
    `SELECT count(*)::int AS count, coalesce(extract(epoch FROM now() - min(contributed_at)), 0)::float8 AS oldest
     FROM waas_rooms WHERE status = 'contributed' AND contributed_at < now() - make_interval(secs => $1)`,
    [staleSeconds],
    (r) => ({ count: r.count, oldestSeconds: r.oldest }),
  );
}

const FINISH_ROOM = prepared(
  "finish-room",
  `UPDATE waas_rooms SET status = CASE WHEN status IN ('done', 'failed') THEN status ELSE $3 END,
       result = CASE WHEN status IN ('done', 'failed') THEN result ELSE $4 END,
       error = CASE WHEN status IN ('done', 'failed') THEN error ELSE $5 END,
       server_nonces_sealed = NULL
     WHERE environment_id = $1 AND id = $2
     RETURNING ${COLUMNS}`,
);

/** The operation's outcome; the nonces are cleared with it (a FROST nonce pair signs once). Idempotent. */
export async function finishRoom(
  q: Queryable,
  environmentId: string,
  roomId: string,
  outcome: { result: Record<string, unknown> } | { error: NonNullable<RoomRecord["error"]> },
): Promise<RoomRecord> {
  const done = "result" in outcome;
  return q.one(FINISH_ROOM([environmentId, roomId, done ? "done" : "failed", done ? outcome.result : null, done ? null : outcome.error]), undefined, toRoom);
}

const FINISH_ROOM_RECORDED = prepared(
  "finish-room-recorded",
  `WITH finished AS (
       UPDATE waas_rooms SET status = CASE WHEN status IN ('done', 'failed') THEN status ELSE 'done' END,
         result = CASE WHEN status IN ('done', 'failed') THEN result ELSE $3 END,
         server_nonces_sealed = NULL
       WHERE environment_id = $1 AND id = $2
       RETURNING ${COLUMNS}),
     ${auditsWithEventsCtes(4, 5, 6, "EXISTS (SELECT 1 FROM finished)")}
     SELECT finished.*, (SELECT n FROM notified) AS notified FROM finished`,
);

/**
 * finishRoom with a result, and the operation's audit rows and events, in one statement (a signature's
 * last write: one round trip, not three). Nothing is recorded when the room is not there.
 */
export async function finishRoomRecorded(q: Queryable, environmentId: string, roomId: string, result: Record<string, unknown>, audits: AuditWithEvent[]): Promise<RoomRecord> {
  return q.one(FINISH_ROOM_RECORDED([environmentId, roomId, result, ...auditRowsParams(audits)]), undefined, toRoom);
}

function toRoom(r: Record<string, any>): RoomRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    userId: r.user_id,
    walletId: r.wallet_id,
    operation: r.operation,
    status: r.status,
    request: r.request,
    serverKeygenId: r.server_keygen_id,
    shareSetId: r.share_set_id,
    serverCommitments: r.server_commitments,
    contribution: r.contribution,
    result: r.result,
    error: r.error,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
}
