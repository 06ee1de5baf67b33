import type { Config } from "../config.js";
import type { Database } from "../db/db.js";
import type { Logger } from "../log.js";
import type { EphemeralStore } from "../store/store.js";
import type { Sealer } from "../crypto/seal.js";
import type { RecoveredCounts } from "../db/repositories/wallets.js";
import type { WalletRecoveryInput } from "./wallets/recovery-input.js";
import type { Keyring } from "./sessions/keyring.js";
import type { RoomOperationName } from "./waas/threshold/share-operations.js";
import type { BackupStep, BackupStepResult, RecoverStep, RecoverStepResult } from "./waas/threshold/backup-steps.js";
import type { SessionVerifier } from "./sessions/tokens.js";
import type { ChainNodes } from "./chains/nodes.js";
import type { ExchangeApi } from "./exchange-accounts/port.js";
import type { Vendors } from "./vendors/port.js";
import type { DomainObserver } from "./observer.js";

/** Starts durable flows; implemented over the Temporal client (src/temporal/flows.ts). */
export interface Flows {
  recoverWallets(input: WalletRecoveryInput): Promise<RecoveredCounts & { skippedWalletIds: string[]; recoveredWalletIds: string[] }>;
  /**
   * Starts the users export workflow users-export/<exportId> and returns once it is started (not finished). Starting
   * the same export again joins the running workflow.
   */
  startExport(input: { environmentId: string; exportId: string }): Promise<void>;
  /**
   * Starts the delivery workflow of a stored webhook message: `webhook-delivery/<messageId>`, or for a
   * redelivery `webhook-delivery/<messageId>/redelivery-<n>`. Starting one that exists joins it.
   */
  startWebhookDelivery(input: { environmentId: string; messageId: string; redelivery?: number }): Promise<void>;
  /**
   * Wakes the delivery actors of these endpoints (`webhook-endpoint/<webhookId>`), starting those not
   * running: they have new messages. Throws when any could not be reached (the dispatcher's sweep retries).
   */
  wakeWebhookEndpoints(endpoints: { environmentId: string; webhookId: string }[]): Promise<void>;
  /**
   * Runs a room's key-share operation (refresh, reshare, export) on its wallet's actor (`waas-wallet/<walletId>`,
   * started when not running) and returns once it has finished; an operation refused throws its DomainError.
   * The room holds the outcome.
   */
  runWaasRoom(input: { environmentId: string; walletId: string; userId: string; roomId: string; operation: RoomOperationName; exportId?: string }): Promise<void>;
  /** Backs up a wallet's current share set on its actor (src/activities/waas-backup.ts); refusals throw their DomainError. */
  runWaasBackup(input: BackupStep): Promise<BackupStepResult>;
  /** Recovers a wallet's backups of its current share set on its actor, restoring a lost server share. */
  runWaasRecover(input: RecoverStep): Promise<RecoverStepResult>;
}

/** Everything domain code may touch, injected once at start. */
export interface Deps {
  config: Config;
  db: Database;
  store: EphemeralStore;
  sealer: Sealer;
  /** Seals the key-share backups the service keeps itself, under keys of their own (src/domain/waas/threshold/backup-vault.ts). */
  backupSealer: Sealer;
  flows: Flows;
  log: Logger;
  /** Where sign-ins, sessions and webhook attempts are reported for /metrics (./observer.ts). */
  observer: DomainObserver;
  /** This process's imported copy of the environments' session signing keys (src/domain/sessions/keyring.ts). */
  sessionKeys: Keyring;
  /** Verifies session JWTs, remembering verified ones (src/domain/sessions/tokens.ts). */
  sessionVerifier: SessionVerifier;
  /** Sends mail: SMTP, or the dev mailbox (src/messaging/mail.ts). */
  mailer: Mailer;
  /** Sends SMS through an account of the SMS gateway, or the dev outbox (src/messaging/sms.ts). */
  sms: SmsSender;
  /** The decentralized-social network's hub (src/adapters/social-hub.ts); null when none is configured. */
  socialHub: SocialHub | null;
  /** The users' cloud drives, one backup location of a device's key shares (src/adapters/cloud-drive.ts). */
  cloudDrive: CloudDrive;
  /** The customers' own backup URLs, another such location (src/adapters/customer-backup.ts). */
  customerBackup: CustomerBackup;
  /** The EVM and Solana nodes of the environments' networks (src/adapters/chain-nodes.ts). */
  chainNodes: ChainNodes;
  /** The environments' exchanges, over Sigil's exchange protocol (src/adapters/exchange-api.ts). */
  exchangeApi: ExchangeApi;
  /**
   * The price source and the ramp provider for a resolved endpoint (src/adapters/vendors.ts): the
   * environment's own provider of the kind, else the operator's (src/domain/vendors/endpoint.ts).
   */
  vendors: Vendors;
}

/**
 * A user's cloud drive, reached with the user's own access token (given per call, never stored). Throws the
 * DomainErrors backup_location_unavailable (503) and backup_location_refused (422).
 */
export interface CloudDrive {
  upload(accessToken: string, name: string, content: Uint8Array): Promise<{ fileId: string }>;
  /** The content of the newest file with this name, or null when there is none. */
  download(accessToken: string, name: string): Promise<Uint8Array | null>;
}

/** Which backed-up share a customer's backup URL is asked about. */
export interface CustomerBackupKey {
  walletId: string;
  shareSetEpoch: number;
  /** Which holder's share: its 1-based index in the share set. */
  holder: number;
}

/** Where and how a customer's backup URL is called: a webhook endpoint's URL and signing secret. */
export interface CustomerBackupTarget {
  url: string;
  /** The Standard Webhooks signing secret of this location (`whsec_` + base64). */
  secret: string;
  environmentName: "live" | "sandbox";
}

/**
 * A customer's own backup service, signed as webhooks are. The share is opaque: already encrypted to its
 * holder. Throws backup_location_unavailable / backup_location_refused, and invalid_backup_url (400) for a
 * URL the destination policy refuses.
 */
export interface CustomerBackup {
  store(target: CustomerBackupTarget, backup: CustomerBackupKey & { encryptedShare: string }): Promise<void>;
  /** The stored encryptedShare, or null when the customer has none for this key. */
  fetch(target: CustomerBackupTarget, key: CustomerBackupKey): Promise<string | null>;
}

/** A decentralized-social account as its network's hub knows it. */
export interface SocialAccount {
  /** The address that holds the account (0x hex). */
  custodyAddress: string;
  username?: string;
  displayName?: string;
  pfpUrl?: string;
}

/** Who holds a decentralized-social account. Throws when the hub cannot be asked. */
export interface SocialHub {
  /** The account, or null when the network knows none with this id. */
  account(accountId: string): Promise<SocialAccount | null>;
}

/** A plain-text mail. Throws when the mail could not be handed to the server (nothing was sent). */
export interface Mailer {
  send(mail: { to: string; subject: string; text: string }): Promise<void>;
}

/** The environment's SMS gateway account (its `sms` provider): who pays and which number sends. */
export interface SmsAccount {
  accountSid: string;
  authToken: string;
  /** The sender number (E.164) or alphanumeric sender id. */
  from: string;
}

/** Sends one SMS. Throws when the gateway did not accept it. */
export interface SmsSender {
  send(account: SmsAccount, sms: { to: string; body: string }): Promise<void>;
}
