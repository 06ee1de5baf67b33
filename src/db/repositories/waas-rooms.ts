import type { Queryable } from "../db.js";

/**
 * Rooms of threshold WaaS wallets (migration 033). Every function is scoped by environment; the room's
 * sealed key and nonces are read only by `roomSecrets` (the actor's activities).
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
  },
): Promise<RoomRecord> {
  return q.one(
    `INSERT INTO waas_rooms (id, environment_id, user_id, wallet_id, operation, request, server_keygen_id, server_key_sealed, share_set_id, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(secs => $10))
     RETURNING ${COLUMNS}`,
    [room.id, room.environmentId, room.userId, room.walletId, room.operation, room.request, room.serverKeygenId, room.serverKeySealed, room.shareSetId ?? null, room.ttlSeconds],
    toRoom,
  );
}

export async function findRoom(q: Queryable, environmentId: string, roomId: string): Promise<RoomRecord | null> {
  return q.oneOrNone(`SELECT ${COLUMNS} FROM waas_rooms WHERE environment_id = $1 AND id = $2`, [environmentId, roomId], (r) => (r ? toRoom(r) : null));
}

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
  return q.oneOrNone(
    `UPDATE waas_rooms SET operation = $5, wallet_id = $4, request = request || $6, share_set_id = $7
     WHERE environment_id = $1 AND user_id = $2 AND id = $3 AND operation = 'reserved' AND status = 'open' AND expires_at > now()
       AND (wallet_id IS NULL OR wallet_id = $4)
     RETURNING ${COLUMNS}`,
    [environmentId, userId, roomId, op.walletId, op.operation, op.request, op.shareSetId],
    (r) => (r ? toRoom(r) : null),
  );
}

/** The room's sealed private key and FROST nonces (the activities open them). */
export async function roomSecrets(q: Queryable, environmentId: string, roomId: string): Promise<{ serverKeySealed: string; serverNoncesSealed: string | null } | null> {
  return q.oneOrNone(
    "SELECT server_key_sealed, server_nonces_sealed FROM waas_rooms WHERE environment_id = $1 AND id = $2",
    [environmentId, roomId],
    (r) => (r ? { serverKeySealed: r.server_key_sealed, serverNoncesSealed: r.server_nonces_sealed } : null),
  );
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

/**
 * Takes the device's one contribution: only an open, unexpired room of this user moves to 'contributed'.
 * Of two concurrent posts exactly one finds the room open.
 */
export async function contribute(q: Queryable, environmentId: string, userId: string, roomId: string, contribution: Record<string, unknown>): Promise<RoomRecord | null> {
  return q.oneOrNone(
    `UPDATE waas_rooms SET status = 'contributed', contribution = $4
     WHERE environment_id = $1 AND user_id = $2 AND id = $3 AND status = 'open' AND expires_at > now()
     RETURNING ${COLUMNS}`,
    [environmentId, userId, roomId, contribution],
    (r) => (r ? toRoom(r) : null),
  );
}

/** The operation's outcome; the nonces are cleared with it (a FROST nonce pair signs once). Idempotent. */
export async function finishRoom(
  q: Queryable,
  environmentId: string,
  roomId: string,
  outcome: { result: Record<string, unknown> } | { error: NonNullable<RoomRecord["error"]> },
): Promise<RoomRecord> {
  const done = "result" in outcome;
  return q.one(
    `UPDATE waas_rooms SET status = CASE WHEN status IN ('done', 'failed') THEN status ELSE $3 END,
       result = CASE WHEN status IN ('done', 'failed') THEN result ELSE $4 END,
       error = CASE WHEN status IN ('done', 'failed') THEN error ELSE $5 END,
       server_nonces_sealed = NULL
     WHERE environment_id = $1 AND id = $2
     RETURNING ${COLUMNS}`,
    [environmentId, roomId, done ? "done" : "failed", done ? outcome.result : null, done ? null : outcome.error],
    toRoom,
  );
}

/**
 * The user's rooms expired more than `keepSeconds` ago. Export rooms stay: they are the record that an
 * export id was used (one export per id, ever).
 */
export async function deleteFinishedRooms(q: Queryable, environmentId: string, userId: string, keepSeconds: number): Promise<void> {
  await q.none(
    `DELETE FROM waas_rooms WHERE environment_id = $1 AND user_id = $2 AND operation <> 'export'
       AND expires_at < now() - make_interval(secs => $3)`,
    [environmentId, userId, keepSeconds],
  );
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
