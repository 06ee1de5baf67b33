import type { Database } from "../db/db.js";
import type { Sealer } from "../crypto/seal.js";
import type { BackupStepResult, RecoverStepResult, VaultCredential } from "../domain/waas/threshold/backup-steps.js";
import { backupShareSet, recoverShareSet, type BackupStepInput } from "../domain/waas/threshold/share-set-backups.js";
import { failFast } from "./waas-shares.js";

/**
 * The wallet actor's backup and recovery steps (Updates `backup` and `recover` of
 * src/workflows/waas-wallet.ts); the rules are in src/domain/waas/threshold/share-set-backups.ts.
 */

export interface WaasBackupActivityDeps {
  db: Database;
  sealer: Sealer;
  backupSealer: Sealer;
}

export function createWaasBackupActivities(deps: WaasBackupActivityDeps) {
  return {
    async backupWaasShares(input: BackupStepInput & { credentials: VaultCredential[]; toVault: boolean; location: string }): Promise<BackupStepResult> {
      return failFast(() => backupShareSet(deps, input));
    },

    async recoverWaasShares(input: BackupStepInput & { keyShareIds: string[] }): Promise<RecoverStepResult> {
      return failFast(() => recoverShareSet(deps, input));
    },
  };
}
