import type { Queryable } from "../db.js";
import type { ShareBackupLocation } from "./waas-share-backups.js";

/**
 * What the SDK's backup operations need beyond the vault's rows (waas-share-backups.ts): the backups of one
 * epoch, a backup replaced by a newer one of the same holder, the server's share written back on recovery,
 * and the wallet's delegated-access setting (migration 035). Every function is scoped by environment.
 */

export interface EpochBackup {
  id: string;
  holder: number;
  location: ShareBackupLocation;
  shareSealed: string | null;
  reference: string | null;
}

/** The wallet's backups of one share-set epoch, by holder then location. */
export async function backupsOfEpoch(q: Queryable, environmentId: string, walletId: string, epoch: number): Promise<EpochBackup[]> {
  return q.map(
    `SELECT id, holder, location, share_sealed, reference FROM waas_share_backups
      WHERE environment_id = $1 AND wallet_id = $2 AND share_set_epoch = $3 ORDER BY holder, location`,
    [environmentId, walletId, epoch],
    (r) => ({ id: r.id, holder: r.holder, location: r.location, shareSealed: r.share_sealed, reference: r.reference }),
  );
}

/**
 * Drops the backup of this epoch, holder and location so that the next store writes the newer one (the
 * device backs up again after a passcode change: the newest credential is the one that opens).
 */
export async function dropBackup(q: Queryable, environmentId: string, walletId: string, epoch: number, holder: number, location: ShareBackupLocation): Promise<void> {
  await q.none(
    `DELETE FROM waas_share_backups WHERE environment_id = $1 AND wallet_id = $2 AND share_set_epoch = $3 AND holder = $4 AND location = $5`,
    [environmentId, walletId, epoch, holder, location],
  );
}

/**
 * Writes the server's share of a set back (recovery): the row is created when it was deleted, or refilled
 * when it was destroyed. Only ever for the current set (the caller checks), never a retired one.
 */
export async function restoreServerShare(q: Queryable, environmentId: string, shareSetId: string, holderIndex: number, shareSealed: string): Promise<void> {
  await q.none(
    `INSERT INTO waas_share_set_shares (share_set_id, environment_id, holder_index, share_sealed)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (share_set_id, holder_index) DO UPDATE SET share_sealed = EXCLUDED.share_sealed, encrypted_for_holder = NULL, destroyed_at = NULL
     WHERE waas_share_set_shares.environment_id = EXCLUDED.environment_id`,
    [shareSetId, environmentId, holderIndex, shareSealed],
  );
}

/** Sets the wallet's delegated-access refusal; false when the wallet is not the user's in this environment. */
export async function setDelegatedAccessDenied(q: Queryable, environmentId: string, userId: string, walletId: string, denied: boolean): Promise<boolean> {
  const r = await q.result(
    `UPDATE waas_wallets SET has_denied_delegated_access = $4
      WHERE environment_id = $1 AND user_id = $2 AND id = $3 AND private_key_sealed IS NULL`,
    [environmentId, userId, walletId, denied],
  );
  return r.rowCount === 1;
}

export async function delegatedAccessDenied(q: Queryable, environmentId: string, walletId: string): Promise<boolean> {
  const row = await q.oneOrNone("SELECT has_denied_delegated_access FROM waas_wallets WHERE environment_id = $1 AND id = $2", [environmentId, walletId]);
  return row?.has_denied_delegated_access === true;
}

/** The user's threshold wallet with this address (any case for EVM hex), or null. */
export async function userWalletByAddress(q: Queryable, environmentId: string, userId: string, address: string): Promise<{ id: string; address: string } | null> {
  return q.oneOrNone(
    `SELECT id, address FROM waas_wallets
      WHERE environment_id = $1 AND user_id = $2 AND private_key_sealed IS NULL
        AND (address = $3 OR (address LIKE '0x%' AND lower(address) = lower($3)))`,
    [environmentId, userId, address],
  );
}

/** Whether the environment has an active delegated-access encryption key with this kid. */
export async function activeKidExists(q: Queryable, environmentId: string, kid: string): Promise<boolean> {
  return (await q.oneOrNone("SELECT 1 FROM encryption_public_keys WHERE environment_id = $1 AND kid = $2 AND status = 'active'", [environmentId, kid])) !== null;
}
