import { proxyActivities } from "@temporalio/workflow";
import type { Activities } from "../activities/index.js";
import type { WalletRecoveryInput } from "../domain/wallets/recovery-input.js";

const { recoverUserWallets } = proxyActivities<Activities>({
  startToCloseTimeout: "30 seconds",
  retry: { initialInterval: "1 second", maximumInterval: "30 seconds", maximumAttempts: 10 },
});

/**
 * Recovers a user's soft-deleted wallets, their additional addresses and custody HD wallets. The work is one
 * database transaction in one activity (with its audit rows); the workflow gives it durability (a crash
 * mid-way is retried) and one-at-a-time execution per user through its id
 * (deleted-wallets-restore/<environmentId>/<userId>, src/temporal/ids.ts).
 */
export async function walletRecoveryWorkflow(input: WalletRecoveryInput) {
  return recoverUserWallets(input);
}
