import type { Database } from "../db/db.js";
import { recoverUserWallets } from "../db/repositories/wallets.js";
import { recordChange } from "../domain/audit/audit.js";
import type { WalletRecoveryInput } from "../domain/wallets/recovery-input.js";

export interface WalletActivityDeps {
  db: Database;
}

/**
 * Wallet activities. recoverUserWallets is idempotent by construction (clearing markers that are already
 * clear changes nothing, and audit rows are written only for wallets this run recovered, in the same
 * transaction), which is what Temporal's retries require.
 */
export function createWalletActivities(deps: WalletActivityDeps) {
  return {
    async recoverUserWallets(input: WalletRecoveryInput) {
      return deps.db.tx(async (t) => {
        const result = await recoverUserWallets(t, input.environmentId, input.userId);
        if (input.audit) {
          const access = { ...input.audit, environmentId: input.environmentId, role: null };
          for (const walletId of result.recoveredWalletIds) {
            await recordChange(t, access, {
              action: "wallet.recovered",
              resourceType: "wallet",
              resourceId: walletId,
              after: { id: walletId, userId: input.userId },
            });
          }
        }
        return result;
      });
    },
  };
}
