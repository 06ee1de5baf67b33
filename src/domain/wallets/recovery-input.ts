/**
 * The input of the wallet recovery flow, declared by the domain that starts it (Flows in deps.ts): the
 * workflow and its activity take this shape, so neither the domain nor its Deps import workflow code.
 */

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
