import { proxyActivities } from "@temporalio/workflow";
import type { Activities } from "../activities/index.js";

const { recoverUserWallets } = proxyActivities<Activities>({
  startToCloseTimeout: "30 seconds",
  retry: { initialInterval: "1 second", maximumInterval: "30 seconds", maximumAttempts: 10 },
});

/** Who asked for the recovery, recorded in the audit trail by the activity (same shape as access.ts's Actor). */
export interface WalletRecoveryAudit {
  organizationId: string;
  actor: { tokenId: string; memberId: string | null; accountId: string | null; requestId: string };
}

export interface WalletRecoveryInput {
  environmentId: string;
  userId: string;
  /** Absent in runs started before recoveries were audited; those write no audit rows. */
  audit?: WalletRecoveryAudit;
}

/**
 * Recovers a user's soft-deleted wallets, their additional addresses and custody HD wallets. The work is one
 * database transaction in one activity (with its audit rows); the workflow gives it durability (a crash
 * mid-way is retried) and one-at-a-time execution per user through its id
 * (wallet-recovery/<environmentId>/<userId>).
 */
export async function walletRecoveryWorkflow(input: WalletRecoveryInput) {
  return recoverUserWallets(input);
}
