/**
 * What the SDK's backup operations hand the wallet actor (Updates `backup` and `recover`,
 * src/workflows/waas-wallet.ts, activities in src/activities/waas-backup.ts) and what they get back. All of
 * it enters the workflow's history, so none of it is secret: the device's credentials are encrypted by the
 * device, and the server's share never leaves the database.
 */

/** Who a step is audited as (the caller of the SDK operation). */
export interface BackupAuditContext {
  userId: string;
  organizationId: string;
  projectId: string;
  environmentName: "live" | "sandbox";
  requestId: string;
}

/** A device credential as the vault keeps it: the device's encrypted share and how the device encrypted it. */
export interface VaultCredential {
  encryptedAccountCredential: string;
  passwordEncrypted: boolean;
}

export interface BackupStep {
  environmentId: string;
  walletId: string;
  userId: string;
  /** The device's credentials, holder 2, 3, ... in order. */
  credentials: VaultCredential[];
  /** Whether the credentials go to the service's vault (the server's share always does). */
  toVault: boolean;
  /** The client's location name, for the audit and event. */
  location: string;
  audit: BackupAuditContext;
}

export interface BackupStepResult {
  epoch: number;
  /** The vault rows written for the credentials. */
  stored: { id: string; holder: number }[];
}

export interface RecoverStep {
  environmentId: string;
  walletId: string;
  userId: string;
  /** Backup ids to recover (empty: every device backup of the current epoch). */
  keyShareIds: string[];
  audit: BackupAuditContext;
}

export interface RecoveredShare {
  id: string;
  holder: number;
  location: string;
  reference: string | null;
  credential: VaultCredential | null;
}

export interface RecoverStepResult {
  epoch: number;
  shares: RecoveredShare[];
  serverShareRestored: boolean;
}
