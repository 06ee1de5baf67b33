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
  createdAt: Date;
  additionalAddresses: AdditionalAddressRecord[];
}

export interface NewWallet {
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
  const id = randomUUID();
  await q.none(
    `INSERT INTO wallets (id, environment_id, user_id, credential_id, name, chain, address, provider, custody_hd_wallet_id, properties)
     SELECT $1, $2, u.id, $4, $5, $6, $7, $8, $9, $10 FROM users u WHERE u.environment_id = $2 AND u.id = $3`,
    [id, environmentId, userId, randomUUID(), w.name, w.chain, w.address, w.provider, w.custodyHdWalletId ?? null, w.properties ?? {}],
  );
  for (const a of w.additionalAddresses ?? []) {
    await q.none(
      `INSERT INTO wallet_additional_addresses (id, environment_id, wallet_id, address, type, public_key)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [randomUUID(), environmentId, id, a.address, a.type, a.publicKey],
    );
  }
  const created = await findWallet(q, environmentId, id);
  if (!created) throw new Error("wallet insert found no user in this environment");
  return created;
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
      `UPDATE wallets SET deleted_at = now() WHERE environment_id = $1 AND id = $2 AND deleted_at IS NULL
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
 * forbids two live links), and is reported as skipped. Idempotent: a second run recovers nothing.
 */
export async function recoverUserWallets(
  q: Queryable,
  environmentId: string,
  userId: string,
): Promise<RecoveredCounts & { skippedWalletIds: string[] }> {
  return q.tx(async (t) => {
    const recoverable = await t.any(
      `SELECT w.id FROM wallets w
       WHERE w.environment_id = $1 AND w.user_id = $2 AND w.deleted_at IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM wallets o WHERE o.environment_id = w.environment_id AND o.chain = w.chain
                         AND o.address = w.address AND o.deleted_at IS NULL)
       FOR UPDATE`,
      [environmentId, userId],
    );
    const skipped = await t.map(
      `SELECT id FROM wallets WHERE environment_id = $1 AND user_id = $2 AND deleted_at IS NOT NULL AND NOT (id = ANY($3::uuid[]))`,
      [environmentId, userId, recoverable.map((r) => r.id)],
      (r) => r.id as string,
    );
    const ids = recoverable.map((r) => r.id as string);
    const wallets = await t.result("UPDATE wallets SET deleted_at = NULL WHERE environment_id = $1 AND id = ANY($2::uuid[])", [
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
    return { wallets: wallets.rowCount, additionalAddresses: addresses.rowCount, custodyHdWallets: hd.rowCount, skippedWalletIds: skipped };
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
    createdAt: toDate(r.created_at)!,
    additionalAddresses: r.additional,
  };
}
