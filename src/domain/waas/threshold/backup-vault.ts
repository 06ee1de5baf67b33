import { SealError } from "../../../crypto/seal.js";
import type { Queryable } from "../../../db/db.js";
import { findShareBackup, insertShareBackup, type ShareBackupLocation } from "../../../db/repositories/waas-share-backups.js";
import { badRequest, notFound, unprocessable } from "../../../errors.js";
import type { Deps } from "../../deps.js";

/**
 * The service's own backup location: a share kept in Postgres sealed under the backup sealing keys
 * (SIGIL_BACKUP_SEALING_KEYS), never under the keys that seal the server's live share, so that one leaked
 * key opens one of the two at most. The associated data binds a sealed backup to its environment, wallet,
 * epoch and holder: a value copied to another row does not open there. The other locations keep the share
 * themselves; their row only says where (recordBackupLocation). Shares are opaque strings here.
 */

export interface ShareBackupKey {
  walletId: string;
  shareSetEpoch: number;
  /** The holder's 1-based index in the share set. */
  holder: number;
}

type VaultDeps = Pick<Deps, "db" | "backupSealer">;

export const backupAad = (environmentId: string, k: ShareBackupKey) => `waas-backup:${environmentId}:${k.walletId}:${k.shareSetEpoch}:${k.holder}`;

function checkKey(k: ShareBackupKey) {
  if (!Number.isSafeInteger(k.shareSetEpoch) || k.shareSetEpoch < 1) throw badRequest("invalid_share_set_epoch", "shareSetEpoch must be a positive integer");
  if (!Number.isInteger(k.holder) || k.holder < 1 || k.holder > 255) throw badRequest("invalid_backup_holder", "holder must be a holder index from 1 to 255");
}

/**
 * Seals and stores a share at the service's location. Idempotent: storing the same wallet, epoch and holder
 * again (a retried step) keeps the first backup. `q` lets the caller store it inside its own transaction.
 * 404 when the wallet is not this environment's.
 */
export async function storeBackup(
  deps: VaultDeps,
  environmentId: string,
  backup: ShareBackupKey & { share: string },
  q: Queryable = deps.db,
): Promise<{ id: string; createdAt: Date }> {
  checkKey(backup);
  const { walletId, shareSetEpoch, holder } = backup;
  const shareSealed = deps.backupSealer.seal(backup.share, backupAad(environmentId, backup));
  const stored = await insertShareBackup(q, environmentId, { walletId, shareSetEpoch, holder, location: "service", shareSealed, reference: null });
  if (!stored) throw notFound("wallet");
  return { id: stored.id, createdAt: stored.createdAt };
}

/** The share backed up at the service's location, or null when there is none (or the wallet is another environment's). */
export async function readBackup(deps: VaultDeps, environmentId: string, key: ShareBackupKey, q: Queryable = deps.db): Promise<string | null> {
  checkKey(key);
  const row = await findShareBackup(q, environmentId, { ...key, location: "service" });
  if (!row?.shareSealed) return null;
  try {
    return deps.backupSealer.open(row.shareSealed, backupAad(environmentId, key));
  } catch (err) {
    // Sealed under a key no longer configured, or altered in the database: this backup cannot serve.
    if (err instanceof SealError) throw unprocessable("backup_unreadable", "this key-share backup cannot be opened; recover from another location");
    throw err;
  }
}

/**
 * Records that a share was backed up elsewhere (a cloud drive file id, a customer URL, a delegated-share
 * event id). Idempotent like storeBackup; 404 when the wallet is not this environment's.
 */
export async function recordBackupLocation(
  q: Queryable,
  environmentId: string,
  backup: ShareBackupKey & { location: Exclude<ShareBackupLocation, "service">; reference: string },
): Promise<{ id: string; reference: string }> {
  checkKey(backup);
  const { walletId, shareSetEpoch, holder, location, reference } = backup;
  const stored = await insertShareBackup(q, environmentId, { walletId, shareSetEpoch, holder, location, shareSealed: null, reference });
  if (!stored) throw notFound("wallet");
  return { id: stored.id, reference: stored.reference! };
}
