import { randomUUID } from "node:crypto";
import type { Queryable } from "../db.js";

/** A WaaS wallet row. The sealed private key is only read by signing (see findWaasWalletKey). */
export interface WaasWalletRecord {
  id: string;
  environmentId: string;
  userId: string | null;
  name: string | null;
  chain: "EVM" | "SOL";
  address: string;
  publicKey: string;
  delegatedAccessGrantedAt: Date | null;
  delegatedAccessRevokedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface KeyShareBackupRecord {
  id: string;
  walletId: string;
  location: string;
  externalKeyShareId: string;
  createdAt: Date;
  updatedAt: Date;
}

/** Every column but the sealed key. */
const WALLET_COLUMNS = `id, environment_id, user_id, name, chain, address, public_key, delegated_access_granted_at,
  delegated_access_revoked_at, created_at, updated_at`;

export async function insertWaasWallet(
  q: Queryable,
  environmentId: string,
  w: {
    id: string;
    userId: string | null;
    name: string | null;
    chain: "EVM" | "SOL";
    address: string;
    publicKey: string;
    privateKeySealed: string;
    delegatedAccess: boolean;
  },
): Promise<WaasWalletRecord> {
  const row = await q.one(
    `INSERT INTO waas_wallets (id, environment_id, user_id, name, chain, address, public_key, private_key_sealed, delegated_access_granted_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, CASE WHEN $9 THEN now() END)
     RETURNING ${WALLET_COLUMNS}`,
    [w.id, environmentId, w.userId, w.name, w.chain, w.address, w.publicKey, w.privateKeySealed, w.delegatedAccess],
  );
  return toWallet(row);
}

export async function findWaasWallet(q: Queryable, environmentId: string, id: string): Promise<WaasWalletRecord | null> {
  const row = await q.oneOrNone(`SELECT ${WALLET_COLUMNS} FROM waas_wallets WHERE environment_id = $1 AND id = $2`, [environmentId, id]);
  return row ? toWallet(row) : null;
}

/** The wallet with its sealed key, locked for the rest of the transaction (signing vs. revocation). */
export async function lockWaasWalletWithKey(
  q: Queryable,
  environmentId: string,
  id: string,
): Promise<(WaasWalletRecord & { privateKeySealed: string }) | null> {
  const row = await q.oneOrNone(
    `SELECT ${WALLET_COLUMNS}, private_key_sealed FROM waas_wallets WHERE environment_id = $1 AND id = $2 FOR SHARE`,
    [environmentId, id],
  );
  return row ? { ...toWallet(row), privateKeySealed: row.private_key_sealed } : null;
}

/** Wallets by id (those of this environment only), in the order of the ids given. */
export async function findWaasWallets(q: Queryable, environmentId: string, ids: string[]): Promise<WaasWalletRecord[]> {
  if (ids.length === 0) return [];
  const rows = await q.any(
    `SELECT ${WALLET_COLUMNS} FROM waas_wallets WHERE environment_id = $1 AND id = ANY($2::uuid[])
     ORDER BY array_position($2::uuid[], id)`,
    [environmentId, ids],
  );
  return rows.map(toWallet);
}

export async function listUserWaasWallets(q: Queryable, environmentId: string, userId: string): Promise<WaasWalletRecord[]> {
  const rows = await q.any(
    `SELECT ${WALLET_COLUMNS} FROM waas_wallets WHERE environment_id = $1 AND user_id = $2 ORDER BY created_at, id`,
    [environmentId, userId],
  );
  return rows.map(toWallet);
}

/**
 * Revokes the active delegated access of the given wallets; returns the ids whose access this call revoked
 * (wallets never granted or already revoked are left as they are).
 */
export async function revokeDelegatedAccess(q: Queryable, environmentId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  return q.map(
    `UPDATE waas_wallets SET delegated_access_revoked_at = now(), updated_at = now()
     WHERE environment_id = $1 AND id = ANY($2::uuid[])
       AND delegated_access_granted_at IS NOT NULL AND delegated_access_revoked_at IS NULL
     RETURNING id`,
    [environmentId, ids],
    (r) => r.id as string,
  );
}

/** True when the user exists (and is not deleted) in the environment. */
export async function userExists(q: Queryable, environmentId: string, userId: string): Promise<boolean> {
  const row = await q.oneOrNone("SELECT 1 FROM users WHERE environment_id = $1 AND id = $2 AND deleted_at IS NULL", [environmentId, userId]);
  return row !== null;
}

/** Records backup locations; recording the same location (and external id) again refreshes it. */
export async function upsertKeyShareBackups(
  q: Queryable,
  environmentId: string,
  walletId: string,
  locations: { location: string; externalKeyShareId: string }[],
): Promise<{ record: KeyShareBackupRecord; created: boolean }[]> {
  const out: { record: KeyShareBackupRecord; created: boolean }[] = [];
  for (const l of locations) {
    const row = await q.one(
      `INSERT INTO waas_key_share_backups (id, environment_id, wallet_id, location, external_key_share_id)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (environment_id, wallet_id, location, external_key_share_id) DO UPDATE SET updated_at = now()
       RETURNING *, (xmax = 0) AS inserted`,
      [randomUUID(), environmentId, walletId, l.location, l.externalKeyShareId],
    );
    out.push({ record: toBackup(row), created: row.inserted });
  }
  return out;
}

export async function listKeyShareBackups(q: Queryable, environmentId: string, walletId: string): Promise<KeyShareBackupRecord[]> {
  const rows = await q.any(
    "SELECT * FROM waas_key_share_backups WHERE environment_id = $1 AND wallet_id = $2 ORDER BY created_at, id",
    [environmentId, walletId],
  );
  return rows.map(toBackup);
}

function toWallet(r: Record<string, any>): WaasWalletRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    userId: r.user_id,
    name: r.name,
    chain: r.chain,
    address: r.address,
    publicKey: r.public_key,
    delegatedAccessGrantedAt: r.delegated_access_granted_at,
    delegatedAccessRevokedAt: r.delegated_access_revoked_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toBackup(r: Record<string, any>): KeyShareBackupRecord {
  return {
    id: r.id,
    walletId: r.wallet_id,
    location: r.location,
    externalKeyShareId: r.external_key_share_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
