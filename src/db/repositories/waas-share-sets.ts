import { prepared, type Queryable } from "../db.js";

/**
 * Share sets of threshold WaaS wallets (migration 031): one row per epoch of a wallet's key, and one row per
 * holder's share. Every function is scoped by environment. The shares' secret columns are only read by
 * `setShares`, `lockSetForSigning` and `serverShareSealed` (./waas-threshold-wallets.ts); listings never carry them.
 */

export type ShareSetStatus = "pending" | "current" | "retired";

export interface ShareSetRecord {
  id: string;
  environmentId: string;
  walletId: string;
  epoch: number;
  operationId: string;
  curve: string;
  threshold: number;
  holders: number;
  commitments: string[];
  status: ShareSetStatus;
  createdAt: Date;
  currentAt: Date | null;
  retiredAt: Date | null;
}

/** A holder's share as stored: the server's sealed, any other holder's encrypted to that holder. */
export interface StoredShare {
  holderIndex: number;
  shareSealed: string | null;
  encryptedForHolder: string | null;
  /** The holder's keygen id its share is encrypted to (null for the server's). */
  holderKeygenId: string | null;
  destroyedAt: Date | null;
}

const SET_COLUMNS = `id, environment_id, wallet_id, epoch, operation_id, curve, threshold, holders, commitments, status,
  created_at, current_at, retired_at`;

/**
 * Inserts a pending set with the wallet's next epoch, with its shares, unless the operation already wrote
 * one (then that one is returned, `created` false: a retried activity finds what it did). The wallet row is
 * locked so that two inserts for one wallet take epochs one after the other.
 */
export async function insertPendingSet(
  q: Queryable,
  environmentId: string,
  set: {
    id: string;
    walletId: string;
    operationId: string;
    curve: string;
    threshold: number;
    holders: number;
    commitments: string[];
    /** Sealed by the caller with the set id + index as associated data (hence the id is chosen by the caller). */
    shares: { holderIndex: number; shareSealed?: string; encryptedForHolder?: string; holderKeygenId?: string }[];
  },
): Promise<{ set: ShareSetRecord; created: boolean }> {
  return q.tx(async (t) => {
    const wallet = await t.oneOrNone("SELECT 1 FROM waas_wallets WHERE environment_id = $1 AND id = $2 FOR UPDATE", [environmentId, set.walletId]);
    if (!wallet) throw new Error(`insertPendingSet: no wallet ${set.walletId} in environment ${environmentId}`);
    const existing = await findSetByOperation(t, environmentId, set.walletId, set.operationId);
    if (existing) return { set: existing, created: false };
    const row = await t.one(
      `INSERT INTO waas_share_sets (id, environment_id, wallet_id, epoch, operation_id, curve, threshold, holders, commitments)
       VALUES ($1, $2, $3, (SELECT coalesce(max(epoch), 0) + 1 FROM waas_share_sets WHERE wallet_id = $3), $4, $5, $6, $7, $8::jsonb)
       RETURNING ${SET_COLUMNS}`,
      [set.id, environmentId, set.walletId, set.operationId, set.curve, set.threshold, set.holders, JSON.stringify(set.commitments)],
    );
    await insertShares(t, environmentId, set.id, set.shares);
    return { set: toSet(row), created: true };
  });
}

type NewShare = { holderIndex: number; shareSealed?: string; encryptedForHolder?: string; holderKeygenId?: string };

/** A set's shares, one statement for all the holders. */
async function insertShares(q: Queryable, environmentId: string, setId: string, shares: NewShare[]): Promise<void> {
  if (!shares.length) return;
  const values = shares.map((_, i) => `($1, $2, $${3 + i * 4}, $${4 + i * 4}, $${5 + i * 4}, $${6 + i * 4})`).join(", ");
  await q.none(
    `INSERT INTO waas_share_set_shares (share_set_id, environment_id, holder_index, share_sealed, encrypted_for_holder, holder_keygen_id) VALUES ${values}`,
    [setId, environmentId, ...shares.flatMap((s) => [s.holderIndex, s.shareSealed ?? null, s.encryptedForHolder ?? null, s.holderKeygenId ?? null])],
  );
}

/**
 * A new wallet's first set, current at once (epoch 1): there is no set to retire, and the wallet row, made in
 * the same transaction, is seen by nobody else until it commits.
 */
export async function insertFirstSet(
  q: Queryable,
  environmentId: string,
  set: { id: string; walletId: string; operationId: string; curve: string; threshold: number; holders: number; commitments: string[]; shares: NewShare[] },
): Promise<ShareSetRecord> {
  const row = await q.one(
    `INSERT INTO waas_share_sets (id, environment_id, wallet_id, epoch, operation_id, curve, threshold, holders, commitments, status, current_at)
     VALUES ($1, $2, $3, 1, $4, $5, $6, $7, $8::jsonb, 'current', now())
     RETURNING ${SET_COLUMNS}`,
    [set.id, environmentId, set.walletId, set.operationId, set.curve, set.threshold, set.holders, JSON.stringify(set.commitments)],
  );
  await insertShares(q, environmentId, set.id, set.shares);
  return toSet(row);
}

export async function findSetByOperation(q: Queryable, environmentId: string, walletId: string, operationId: string): Promise<ShareSetRecord | null> {
  const row = await q.oneOrNone(
    `SELECT ${SET_COLUMNS} FROM waas_share_sets WHERE environment_id = $1 AND wallet_id = $2 AND operation_id = $3`,
    [environmentId, walletId, operationId],
  );
  return row ? toSet(row) : null;
}

/**
 * In one transaction: every other current or pending set of the wallet becomes retired (a pending one was
 * abandoned by an operation that never finished), then this set becomes current. Idempotent: promoting the
 * current set again changes nothing. Returns the ids of the sets this call retired (their shares are then
 * destroyed with destroyRetiredShares). A retired set is never promoted again (false: nothing changed).
 */
export async function promoteSet(
  q: Queryable,
  environmentId: string,
  walletId: string,
  setId: string,
): Promise<{ promoted: boolean; retiredSetIds: string[] }> {
  return q.tx(async (t) => {
    // One promotion per wallet at a time (as insertPendingSet): two concurrent ones would otherwise each
    // lock their own set and then wait for the other's.
    await t.oneOrNone("SELECT 1 FROM waas_wallets WHERE environment_id = $1 AND id = $2 FOR UPDATE", [environmentId, walletId]);
    const target = await t.oneOrNone<{ status: ShareSetStatus }>(
      "SELECT status FROM waas_share_sets WHERE environment_id = $1 AND wallet_id = $2 AND id = $3 FOR UPDATE",
      [environmentId, walletId, setId],
    );
    if (!target || target.status === "retired") return { promoted: false, retiredSetIds: [] };
    if (target.status === "current") return { promoted: true, retiredSetIds: [] };
    // Retire first: the partial unique index allows one current set per wallet at every statement.
    const retired = await t.map(
      `UPDATE waas_share_sets SET status = 'retired', retired_at = now()
       WHERE environment_id = $1 AND wallet_id = $2 AND id <> $3 AND status IN ('current', 'pending')
       RETURNING id`,
      [environmentId, walletId, setId],
      (r) => r.id as string,
    );
    await t.none("UPDATE waas_share_sets SET status = 'current', current_at = now() WHERE id = $1", [setId]);
    return { promoted: true, retiredSetIds: retired };
  });
}

/**
 * Destroys the shares of the wallet's retired sets: the secret columns are cleared (Postgres keeps the old
 * row version until vacuum; the sealing key still protects it) and destroyed_at is stamped. Idempotent;
 * returns how many shares it destroyed.
 */
export async function destroyRetiredShares(q: Queryable, environmentId: string, walletId: string): Promise<number> {
  const r = await q.result(
    `UPDATE waas_share_set_shares sh SET share_sealed = NULL, encrypted_for_holder = NULL, destroyed_at = now()
     FROM waas_share_sets s
     WHERE s.id = sh.share_set_id AND s.environment_id = $1 AND s.wallet_id = $2 AND s.status = 'retired'
       AND sh.environment_id = $1 AND sh.destroyed_at IS NULL`,
    [environmentId, walletId],
  );
  return r.rowCount;
}

/** The wallet's current set (null before its first set is promoted). */
export async function currentSet(q: Queryable, environmentId: string, walletId: string): Promise<ShareSetRecord | null> {
  const row = await q.oneOrNone(
    `SELECT ${SET_COLUMNS} FROM waas_share_sets WHERE environment_id = $1 AND wallet_id = $2 AND status = 'current'`,
    [environmentId, walletId],
  );
  return row ? toSet(row) : null;
}

const USER_WALLET_CURRENT_SET = prepared(
  "user-wallet-current-set",
  `SELECT w.chain AS wallet_chain, w.address AS wallet_address, w.public_key AS wallet_public_key, ${SET_COLUMNS.replace(/(\w+)/g, "s.$1")}
     FROM waas_wallets w JOIN waas_share_sets s ON s.wallet_id = w.id AND s.environment_id = w.environment_id AND s.status = 'current'
     WHERE w.environment_id = $1 AND w.id = $2 AND w.user_id = $3 AND w.private_key_sealed IS NULL`,
);

/**
 * The user's threshold wallet (chain, address, public key) with its current set, in one statement; null for
 * another user's or environment's wallet, a whole-key wallet, or one without a current set.
 */
export async function userWalletCurrentSet(
  q: Queryable,
  environmentId: string,
  userId: string,
  walletId: string,
): Promise<{ wallet: { chain: "EVM" | "SOL"; address: string; publicKey: string }; set: ShareSetRecord } | null> {
  const row = await q.oneOrNone(USER_WALLET_CURRENT_SET([environmentId, walletId, userId]));
  return row ? { wallet: { chain: row.wallet_chain, address: row.wallet_address, publicKey: row.wallet_public_key }, set: toSet(row) } : null;
}

const LOCK_SET_FOR_SIGNING = prepared(
  "lock-set-for-signing",
  // SET_COLUMNS qualified by the set's alias: the joined tables have columns of the same names.
  `SELECT ${SET_COLUMNS.replace(/(\w+)/g, "s.$1")}, sh.share_sealed AS server_share_sealed,
       r.server_key_sealed AS room_key_sealed, r.server_nonces_sealed AS room_nonces_sealed
     FROM waas_share_sets s
     LEFT JOIN waas_share_set_shares sh ON sh.environment_id = s.environment_id AND sh.share_set_id = s.id AND sh.holder_index = $5
     LEFT JOIN waas_rooms r ON r.environment_id = s.environment_id AND r.id = $4
     WHERE s.environment_id = $1 AND s.wallet_id = $2 AND s.id = $3 AND s.status = 'current'
     FOR SHARE OF s`,
);

/** What a signature reads, with its set locked: the set, the server's sealed share, the room's sealed key and nonces. */
export interface SigningMaterial {
  set: ShareSetRecord;
  /** Null when the server's share is gone (destroyed, never written). */
  serverShareSealed: string | null;
  /** Null when the room is not this environment's. */
  room: { keySealed: string; noncesSealed: string | null } | null;
}

/**
 * The set, locked FOR SHARE while it is still the wallet's current one (null once a promotion retired it),
 * with the secrets a signature in room `roomId` opens, in one statement. Signers share the lock, so they never
 * wait for each other; a promotion's UPDATE of the set's status waits for every signer holding it, and a
 * signer arriving after the promotion finds the set retired.
 */
export async function lockSetForSigning(
  q: Queryable,
  environmentId: string,
  walletId: string,
  setId: string,
  roomId: string,
  serverHolderIndex: number,
): Promise<SigningMaterial | null> {
  const row = await q.oneOrNone(LOCK_SET_FOR_SIGNING([environmentId, walletId, setId, roomId, serverHolderIndex]));
  if (!row) return null;
  return {
    set: toSet(row),
    serverShareSealed: row.server_share_sealed ?? null,
    room: row.room_key_sealed ? { keySealed: row.room_key_sealed, noncesSealed: row.room_nonces_sealed ?? null } : null,
  };
}

/** Every set of the wallet by epoch (operators, tests: the invariant "exactly one current"). */
export async function listSets(q: Queryable, environmentId: string, walletId: string): Promise<ShareSetRecord[]> {
  const rows = await q.any(`SELECT ${SET_COLUMNS} FROM waas_share_sets WHERE environment_id = $1 AND wallet_id = $2 ORDER BY epoch`, [
    environmentId,
    walletId,
  ]);
  return rows.map(toSet);
}

/** A set's stored shares, secret columns included (none when the set is not this environment's). */
export async function setShares(q: Queryable, environmentId: string, setId: string): Promise<StoredShare[]> {
  const rows = await q.any(
    `SELECT holder_index, share_sealed, encrypted_for_holder, holder_keygen_id, destroyed_at FROM waas_share_set_shares
     WHERE environment_id = $1 AND share_set_id = $2 ORDER BY holder_index`,
    [environmentId, setId],
  );
  return rows.map((r) => ({
    holderIndex: r.holder_index as number,
    shareSealed: r.share_sealed as string | null,
    encryptedForHolder: r.encrypted_for_holder as string | null,
    holderKeygenId: r.holder_keygen_id as string | null,
    destroyedAt: r.destroyed_at as Date | null,
  }));
}

function toSet(r: Record<string, unknown>): ShareSetRecord {
  return {
    id: r.id as string,
    environmentId: r.environment_id as string,
    walletId: r.wallet_id as string,
    epoch: r.epoch as number,
    operationId: r.operation_id as string,
    curve: r.curve as string,
    threshold: r.threshold as number,
    holders: r.holders as number,
    commitments: r.commitments as string[],
    status: r.status as ShareSetStatus,
    createdAt: r.created_at as Date,
    currentAt: r.current_at as Date | null,
    retiredAt: r.retired_at as Date | null,
  };
}
