import { verifyShare } from "../../../crypto/threshold/shares.js";
import type { Queryable } from "../../../db/db.js";
import { currentSet, setShares, type ShareSetRecord } from "../../../db/repositories/waas-share-sets.js";
import { backupsOfEpoch, dropBackup, restoreServerShare } from "../../../db/repositories/waas-wallet-backups.js";
import { DomainError, notFound, unprocessable } from "../../../errors.js";
import { recordChange } from "../../audit/audit.js";
import type { Deps } from "../../deps.js";
import { endUserAccess } from "../../sessions/service.js";
import type { BackupAuditContext, BackupStepResult, RecoveredShare, RecoverStepResult, VaultCredential } from "./backup-steps.js";
import { readBackup, storeBackup } from "./backup-vault.js";
import { SERVER_HOLDER_INDEX, publicOf, serverShareAad } from "./share-sets.js";

/**
 * The wallet actor's backup and recovery steps (Updates `backup` and `recover` of
 * src/workflows/waas-wallet.ts). They run in the actor's queue, so the current share set cannot change
 * under them: a backup is of one epoch. Inputs hold nothing secret: the device's credentials are encrypted
 * by the device (the service cannot open them), and the server's share is read from, and written to, the
 * database only. Each step is one transaction, so a retried step redoes the whole of it or finds it done.
 */

type StepDeps = Pick<Deps, "db" | "sealer" | "backupSealer">;

export interface BackupStepInput {
  environmentId: string;
  walletId: string;
  audit: BackupAuditContext;
}

const accessOf = (input: BackupStepInput) =>
  endUserAccess(
    { environmentId: input.environmentId, organizationId: input.audit.organizationId, projectId: input.audit.projectId, environmentName: input.audit.environmentName },
    input.audit.userId,
    input.audit.requestId,
  );

/**
 * Backs up the current set: the server's share (sealed under the backup keys) always, and the device's
 * credentials (holder 2, 3, ... in order) at the service when `toVault`. Answers the epoch and the vault
 * rows written; a credential backed up again at the same epoch replaces the older one.
 */
export async function backupShareSet(
  deps: StepDeps,
  input: BackupStepInput & { credentials: VaultCredential[]; toVault: boolean; location: string },
): Promise<BackupStepResult> {
  return deps.db.tx(async (t) => {
    const set = await currentSet(t, input.environmentId, input.walletId);
    if (!set) throw notFound("wallet");
    if (input.credentials.length > set.holders - 1)
      throw unprocessable("too_many_key_shares", `this ${set.threshold}-of-${set.holders} wallet has ${set.holders - 1} device shares`);
    const server = (await setShares(t, input.environmentId, set.id)).find((s) => s.holderIndex === SERVER_HOLDER_INDEX);
    // Gone already: only a recovery from an earlier backup can bring it back; back up the rest anyway.
    if (server?.shareSealed) {
      const share = deps.sealer.open(server.shareSealed, serverShareAad(set.id, SERVER_HOLDER_INDEX));
      await storeBackup(deps, input.environmentId, { walletId: input.walletId, shareSetEpoch: set.epoch, holder: SERVER_HOLDER_INDEX, share }, t);
    }
    const stored: { id: string; holder: number }[] = [];
    if (input.toVault) {
      for (const [i, credential] of input.credentials.entries()) {
        const holder = SERVER_HOLDER_INDEX + 1 + i;
        await dropBackup(t, input.environmentId, input.walletId, set.epoch, holder, "service");
        const key = { walletId: input.walletId, shareSetEpoch: set.epoch, holder };
        const row = await storeBackup(deps, input.environmentId, { ...key, share: JSON.stringify(credential) }, t);
        stored.push({ id: row.id, holder });
      }
    }
    await recordChange(t, accessOf(input), {
      action: "waas_wallet.backed_up",
      resourceType: "waas_wallet",
      resourceId: input.walletId,
      after: { walletId: input.walletId, userId: input.audit.userId, location: input.location, shareSetEpoch: set.epoch, keyShares: input.credentials.length },
    });
    return { epoch: set.epoch, stored };
  });
}

/**
 * The device's backups of the current epoch (all, or those named), the vault's opened to the device's
 * credentials; and the server's share restored from its backup when its live copy is gone, checked against
 * the set's Feldman commitments first (a backup of another set or a tampered one never serves).
 */
export async function recoverShareSet(deps: StepDeps, input: BackupStepInput & { keyShareIds: string[] }): Promise<RecoverStepResult> {
  return deps.db.tx(async (t) => {
    const set = await currentSet(t, input.environmentId, input.walletId);
    if (!set) throw notFound("wallet");
    const all = (await backupsOfEpoch(t, input.environmentId, input.walletId, set.epoch)).filter((b) => b.holder !== SERVER_HOLDER_INDEX);
    const wanted = input.keyShareIds.length ? all.filter((b) => input.keyShareIds.includes(b.id)) : all;
    if (!wanted.length || wanted.length !== (input.keyShareIds.length || wanted.length))
      throw new DomainError("not_found", "key_share_backup_not_found", "no backup of this wallet's current key shares was found");
    const shares: RecoveredShare[] = [];
    for (const b of wanted) {
      const key = { walletId: input.walletId, shareSetEpoch: set.epoch, holder: b.holder };
      const opened = b.location === "service" ? await readBackup(deps, input.environmentId, key, t) : null;
      shares.push({ id: b.id, holder: b.holder, location: b.location, reference: b.reference, credential: opened ? parseCredential(opened) : null });
    }
    const serverShareRestored = await restoreServerShareIfGone(t, deps, input, set);
    await recordChange(t, accessOf(input), {
      action: "waas_wallet.key_shares_recovered",
      resourceType: "waas_wallet",
      resourceId: input.walletId,
      after: { walletId: input.walletId, userId: input.audit.userId, shareSetEpoch: set.epoch, keyShares: shares.length, serverShareRestored },
    });
    return { epoch: set.epoch, shares, serverShareRestored };
  });
}

function parseCredential(opened: string): VaultCredential {
  const c = JSON.parse(opened) as Partial<VaultCredential>;
  if (typeof c.encryptedAccountCredential !== "string") throw unprocessable("backup_unreadable", "this key-share backup cannot be opened; recover from another location");
  return { encryptedAccountCredential: c.encryptedAccountCredential, passwordEncrypted: c.passwordEncrypted === true };
}

async function restoreServerShareIfGone(t: Queryable, deps: StepDeps, input: BackupStepInput, set: ShareSetRecord): Promise<boolean> {
  const server = (await setShares(t, input.environmentId, set.id)).find((s) => s.holderIndex === SERVER_HOLDER_INDEX);
  if (server?.shareSealed) return false;
  const key = { walletId: input.walletId, shareSetEpoch: set.epoch, holder: SERVER_HOLDER_INDEX };
  const value = await readBackup(deps, input.environmentId, key, t);
  if (value === null) throw unprocessable("server_share_missing", "the server's key share of this wallet is gone and was never backed up");
  if (!verifyShare(publicOf(set), { index: SERVER_HOLDER_INDEX, value }))
    throw unprocessable("backup_unreadable", "the server's key-share backup does not match the wallet's key");
  await restoreServerShare(t, input.environmentId, set.id, SERVER_HOLDER_INDEX, deps.sealer.seal(value, serverShareAad(set.id, SERVER_HOLDER_INDEX)));
  return true;
}
