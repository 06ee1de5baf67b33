import { randomUUID } from "node:crypto";
import { toDate, type Queryable } from "../db.js";

export interface AdditionalAddressRecord {
  address: string;
  type: string;
  publicKey: string | null;
}

export interface WalletRecord {
  id: string;
  userId: string;
  credentialId: string;
  name: string;
  chain: string;
  address: string;
  provider: string;
  custodyHdWalletId: string | null;
  properties: Record<string, unknown>;
  lastSelectedAt: Date | null;
  /** Set on embedded wallets the management API pregenerated; claimedAt once the SDK claimed one. */
  pregeneratedAt: Date | null;
  claimedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  environmentId: string;
  additionalAddresses: AdditionalAddressRecord[];
  /** Users that held the wallet before (transfers, merges), oldest first. */
  previousUserIds: string[];
}

export interface NewWallet {
  /** Chosen by the caller when other rows must be bound to the wallet id before insertion (sealed keys). */
  id?: string;
  /** A pregenerated (unclaimed) embedded wallet. */
  pregenerated?: boolean;
  name: string;
  chain: string;
  address: string;
  provider: string;
  custodyHdWalletId?: string | null;
  properties?: Record<string, unknown>;
  additionalAddresses?: AdditionalAddressRecord[];
}

export interface RecoveredCounts {
  wallets: number;
  additionalAddresses: number;
  custodyHdWallets: number;
}

/** SQL for the live additional addresses of the wallet aliased `w`, as a JSON array (what toWallet reads). */
export const ADDITIONAL_ADDRESSES_JSON = `coalesce(
    (SELECT jsonb_agg(jsonb_build_object('address', a.address, 'type', a.type, 'publicKey', a.public_key) ORDER BY a.created_at, a.id)
     FROM wallet_additional_addresses a
     WHERE a.environment_id = w.environment_id AND a.wallet_id = w.id AND a.deleted_at IS NULL), '[]')`;

const SELECT_WALLET = `SELECT w.*, ${ADDITIONAL_ADDRESSES_JSON} AS additional FROM wallets w`;

export async function insertWallet(q: Queryable, environmentId: string, userId: string, w: NewWallet): Promise<WalletRecord> {
  const { id } = await insertWalletRow(q, environmentId, userId, w);
  const created = await findWallet(q, environmentId, id);
  if (!created) throw new Error("wallet insert found no user in this environment");
  return created;
}

/** insertWallet without reading the wallet back: its id and its credential's (what a sign-in needs). */
export async function insertWalletRow(q: Queryable, environmentId: string, userId: string, w: NewWallet): Promise<{ id: string; credentialId: string }> {
  const id = w.id ?? randomUUID();
  const row = await q.oneOrNone(
    `INSERT INTO wallets (id, environment_id, user_id, credential_id, name, chain, address, provider, custody_hd_wallet_id, properties,
                          pregenerated_at, created_at, updated_at)
     -- clock_timestamp(): wallets created in one transaction keep their order (lists sort by created_at).
     SELECT $1, $2, u.id, $4, $5, $6, $7, $8, $9, $10, CASE WHEN $11 THEN now() END, clock_timestamp(), clock_timestamp()
     FROM users u WHERE u.environment_id = $2 AND u.id = $3
     RETURNING credential_id`,
    [
      id,
      environmentId,
      userId,
      randomUUID(),
      w.name,
      w.chain,
      w.address,
      w.provider,
      w.custodyHdWalletId ?? null,
      w.properties ?? {},
      w.pregenerated ?? false,
    ],
  );
  if (!row) throw new Error("wallet insert found no user in this environment");
  for (const a of w.additionalAddresses ?? []) {
    await q.none(
      `INSERT INTO wallet_additional_addresses (id, environment_id, wallet_id, address, type, public_key)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [randomUUID(), environmentId, id, a.address, a.type, a.publicKey],
    );
  }
  return { id, credentialId: row.credential_id };
}

export async function findWallet(q: Queryable, environmentId: string, walletId: string): Promise<WalletRecord | null> {
  const row = await q.oneOrNone(`${SELECT_WALLET} WHERE w.environment_id = $1 AND w.id = $2 AND w.deleted_at IS NULL`, [
    environmentId,
    walletId,
  ]);
  return row ? toWallet(row) : null;
}

export async function listUserWallets(q: Queryable, environmentId: string, userId: string): Promise<WalletRecord[]> {
  const rows = await q.any(
    `${SELECT_WALLET} WHERE w.environment_id = $1 AND w.user_id = $2 AND w.deleted_at IS NULL ORDER BY w.created_at, w.id`,
    [environmentId, userId],
  );
  return rows.map(toWallet);
}

export interface WalletFilters {
  chain?: string | null;
  provider?: string | null;
  userId?: string | null;
}

const FILTERED = `w.environment_id = $1 AND w.deleted_at IS NULL
  AND ($2::text IS NULL OR w.chain = $2) AND ($3::text IS NULL OR w.provider = $3) AND ($4::uuid IS NULL OR w.user_id = $4)`;

/** A page of the environment's live wallets, newest first, and how many match the filters in all. */
export async function listEnvironmentWallets(
  q: Queryable,
  environmentId: string,
  f: WalletFilters,
  page: { offset: number; limit: number },
): Promise<{ wallets: WalletRecord[]; count: number }> {
  const params = [environmentId, f.chain ?? null, f.provider ?? null, f.userId ?? null];
  const rows = await q.any(`${SELECT_WALLET} WHERE ${FILTERED} ORDER BY w.created_at DESC, w.id DESC LIMIT $5 OFFSET $6`, [
    ...params,
    page.limit,
    page.offset,
  ]);
  const { count } = await q.one(`SELECT count(*) AS count FROM wallets w WHERE ${FILTERED}`, params);
  return { wallets: rows.map(toWallet), count };
}

/** Live embedded wallets of the environment per version (wallets without a recorded version left out). */
export async function countEmbeddedWalletVersions(q: Queryable, environmentId: string): Promise<{ version: string; count: number }[]> {
  return q.map(
    `SELECT properties->>'version' AS version, count(*) AS count FROM wallets
     WHERE environment_id = $1 AND provider = 'embeddedWallet' AND deleted_at IS NULL AND properties->>'version' IS NOT NULL
     GROUP BY 1 ORDER BY 1`,
    [environmentId],
    (r) => ({ version: r.version as string, count: r.count as number }),
  );
}

/** Locks the live user row for the rest of the transaction; false when there is none. */
export async function lockUser(q: Queryable, environmentId: string, userId: string): Promise<boolean> {
  const row = await q.oneOrNone("SELECT id FROM users WHERE environment_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE", [
    environmentId,
    userId,
  ]);
  return row !== null;
}

/** The chains on which the user has a live embedded wallet. */
export async function embeddedWalletChains(q: Queryable, environmentId: string, userId: string): Promise<string[]> {
  return q.map(
    `SELECT DISTINCT chain FROM wallets WHERE environment_id = $1 AND user_id = $2 AND provider = 'embeddedWallet' AND deleted_at IS NULL`,
    [environmentId, userId],
    (r) => r.chain as string,
  );
}

export async function userHasEmbeddedWallet(q: Queryable, environmentId: string, userId: string): Promise<boolean> {
  const row = await q.oneOrNone(
    `SELECT 1 FROM wallets WHERE environment_id = $1 AND user_id = $2 AND provider = 'embeddedWallet' AND deleted_at IS NULL LIMIT 1`,
    [environmentId, userId],
  );
  return row !== null;
}

export async function addressLinked(q: Queryable, environmentId: string, chain: string, address: string): Promise<boolean> {
  const row = await q.oneOrNone(
    "SELECT 1 FROM wallets WHERE environment_id = $1 AND chain = $2 AND address = $3 AND deleted_at IS NULL",
    [environmentId, chain, address],
  );
  return row !== null;
}

/** Soft-deletes a wallet with its additional addresses and its custody HD wallet. False when absent. */
export async function softDeleteWallet(q: Queryable, environmentId: string, walletId: string): Promise<boolean> {
  return q.tx(async (t) => {
    const row = await t.oneOrNone(
      `UPDATE wallets SET deleted_at = now(), updated_at = now() WHERE environment_id = $1 AND id = $2 AND deleted_at IS NULL
       RETURNING custody_hd_wallet_id, deleted_at`,
      [environmentId, walletId],
    );
    if (!row) return false;
    await t.none(
      "UPDATE wallet_additional_addresses SET deleted_at = $3 WHERE environment_id = $1 AND wallet_id = $2 AND deleted_at IS NULL",
      [environmentId, walletId, row.deleted_at],
    );
    if (row.custody_hd_wallet_id) {
      await t.none("UPDATE custody_hd_wallets SET deleted_at = $3 WHERE environment_id = $1 AND id = $2 AND deleted_at IS NULL", [
        environmentId,
        row.custody_hd_wallet_id,
        row.deleted_at,
      ]);
    }
    return true;
  });
}

/**
 * Clears the deletion marker on all of a user's wallets, their additional addresses and custody HD wallets,
 * in one transaction. A wallet whose address was linked again meanwhile stays deleted (the unique index
 * forbids two live links), and so does an embedded wallet whose chain got a new embedded wallet meanwhile;
 * both are reported as skipped. Idempotent: a second run recovers nothing.
 */
export async function recoverUserWallets(
  q: Queryable,
  environmentId: string,
  userId: string,
): Promise<RecoveredCounts & { skippedWalletIds: string[]; recoveredWalletIds: string[] }> {
  return q.tx(async (t) => {
    const recoverable = await t.any(
      `SELECT w.id FROM wallets w
       WHERE w.environment_id = $1 AND w.user_id = $2 AND w.deleted_at IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM wallets o WHERE o.environment_id = w.environment_id AND o.chain = w.chain
                         AND o.address = w.address AND o.deleted_at IS NULL)
         -- One live embedded wallet per chain: one pregenerated meanwhile keeps the old one deleted.
         AND NOT (w.provider = 'embeddedWallet' AND EXISTS (
           SELECT 1 FROM wallets e WHERE e.environment_id = w.environment_id AND e.user_id = w.user_id AND e.chain = w.chain
             AND e.provider = 'embeddedWallet' AND e.deleted_at IS NULL))
       FOR UPDATE`,
      [environmentId, userId],
    );
    const skipped = await t.map(
      `SELECT id FROM wallets WHERE environment_id = $1 AND user_id = $2 AND deleted_at IS NOT NULL AND NOT (id = ANY($3::uuid[]))`,
      [environmentId, userId, recoverable.map((r) => r.id)],
      (r) => r.id as string,
    );
    const ids = recoverable.map((r) => r.id as string);
    const wallets = await t.result("UPDATE wallets SET deleted_at = NULL, updated_at = now() WHERE environment_id = $1 AND id = ANY($2::uuid[])", [
      environmentId,
      ids,
    ]);
    const addresses = await t.result(
      `UPDATE wallet_additional_addresses SET deleted_at = NULL
       WHERE environment_id = $1 AND wallet_id = ANY($2::uuid[]) AND deleted_at IS NOT NULL`,
      [environmentId, ids],
    );
    const hd = await t.result(
      `UPDATE custody_hd_wallets SET deleted_at = NULL
       WHERE environment_id = $1 AND user_id = $2 AND deleted_at IS NOT NULL`,
      [environmentId, userId],
    );
    return {
      wallets: wallets.rowCount,
      additionalAddresses: addresses.rowCount,
      custodyHdWallets: hd.rowCount,
      skippedWalletIds: skipped,
      recoveredWalletIds: ids,
    };
  });
}

export function toWallet(r: Record<string, any>): WalletRecord {
  return {
    id: r.id,
    userId: r.user_id,
    credentialId: r.credential_id,
    name: r.name,
    chain: r.chain,
    address: r.address,
    provider: r.provider,
    custodyHdWalletId: r.custody_hd_wallet_id,
    properties: r.properties,
    lastSelectedAt: toDate(r.last_selected_at),
    pregeneratedAt: toDate(r.pregenerated_at),
    claimedAt: toDate(r.claimed_at),
    createdAt: toDate(r.created_at)!,
    updatedAt: toDate(r.updated_at)!,
    environmentId: r.environment_id,
    additionalAddresses: r.additional,
    previousUserIds: r.previous_user_ids ?? [],
  };
}
