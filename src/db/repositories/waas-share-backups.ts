import { randomUUID } from "node:crypto";
import type { Queryable } from "../db.js";

/**
 * Key-share backups of threshold WaaS wallets (migration 032): per wallet, share set epoch, holder and
 * location, the sealed share (location `service`) or where it went (any other location). Every function is
 * scoped by environment.
 */

export type ShareBackupLocation = "service" | "cloud_drive" | "external" | "delegated";

export interface ShareBackupRecord {
  id: string;
  environmentId: string;
  walletId: string;
  shareSetEpoch: number;
  holder: number;
  location: ShareBackupLocation;
  shareSealed: string | null;
  reference: string | null;
  createdAt: Date;
}

export interface NewShareBackup {
  walletId: string;
  shareSetEpoch: number;
  holder: number;
  location: ShareBackupLocation;
  shareSealed: string | null;
  reference: string | null;
}

/**
 * Inserts the backup, or leaves the one already stored for this wallet, epoch, holder and location (a
 * retried step); returns the stored row either way. Null when the wallet is not one of this environment's.
 */
export async function insertShareBackup(q: Queryable, environmentId: string, b: NewShareBackup): Promise<ShareBackupRecord | null> {
  const row = await q.oneOrNone(
    `WITH wallet AS (SELECT id FROM waas_wallets WHERE environment_id = $1 AND id = $2),
     inserted AS (
       INSERT INTO waas_share_backups (id, environment_id, wallet_id, share_set_epoch, holder, location, share_sealed, reference)
       SELECT $3, $1, wallet.id, $4, $5, $6, $7, $8 FROM wallet
       ON CONFLICT (environment_id, wallet_id, share_set_epoch, holder, location) DO NOTHING
       RETURNING *)
     SELECT * FROM inserted
     UNION ALL
     SELECT * FROM waas_share_backups
      WHERE environment_id = $1 AND wallet_id = $2 AND share_set_epoch = $4 AND holder = $5 AND location = $6
     LIMIT 1`,
    [environmentId, b.walletId, randomUUID(), b.shareSetEpoch, b.holder, b.location, b.shareSealed, b.reference],
  );
  if (row) return toShareBackup(row);
  // A concurrent insert of the same backup committed after this statement's snapshot: its row is not in the
  // UNION above, but a new statement sees it. Still nothing: the wallet is not this environment's.
  return findShareBackup(q, environmentId, b);
}

export async function findShareBackup(
  q: Queryable,
  environmentId: string,
  key: { walletId: string; shareSetEpoch: number; holder: number; location: ShareBackupLocation },
): Promise<ShareBackupRecord | null> {
  const row = await q.oneOrNone(
    `SELECT * FROM waas_share_backups
      WHERE environment_id = $1 AND wallet_id = $2 AND share_set_epoch = $3 AND holder = $4 AND location = $5`,
    [environmentId, key.walletId, key.shareSetEpoch, key.holder, key.location],
  );
  return row ? toShareBackup(row) : null;
}

function toShareBackup(r: Record<string, any>): ShareBackupRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    walletId: r.wallet_id,
    shareSetEpoch: r.share_set_epoch,
    holder: r.holder,
    location: r.location,
    shareSealed: r.share_sealed,
    reference: r.reference,
    createdAt: r.created_at,
  };
}
