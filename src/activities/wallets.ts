import type { Database } from "../db/db.js";
import { recoverUserWallets } from "../db/repositories/wallets.js";

export interface WalletActivityDeps {
  db: Database;
}

/**
 * Wallet activities. recoverUserWallets is idempotent by construction (clearing markers that are already
 * clear changes nothing), which is what Temporal's retries require.
 */
export function createWalletActivities(deps: WalletActivityDeps) {
  return {
    async recoverUserWallets(input: { environmentId: string; userId: string }) {
      return recoverUserWallets(deps.db, input.environmentId, input.userId);
    },
  };
}
