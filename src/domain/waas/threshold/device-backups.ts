import { setShares } from "../../../db/repositories/waas-share-sets.js";
import { delegatedAccessDenied, dropBackup, setDelegatedAccessDenied, userWalletByAddress } from "../../../db/repositories/waas-wallet-backups.js";
import { newestActiveEncryptionKey } from "../../../db/repositories/webhook-outbox.js";
import { findShareBackup, type ShareBackupLocation } from "../../../db/repositories/waas-share-backups.js";
import { DomainError, badRequest, conflict, notFound } from "../../../errors.js";
import { audited } from "../../audit/audit.js";
import type { Deps } from "../../deps.js";
import { endUserAccess } from "../../sessions/service.js";
import { recordBackupLocation } from "./backup-vault.js";
import type { RecoveredShare, VaultCredential } from "./backup-steps.js";
import { spendBackupToken } from "./backup-token.js";
import { fetchFromCustomer, storeAtCustomer } from "./customer-backups.js";
import { recordClientDelegatedShare, type ClientDelegatedEnvelope } from "./delegated-share.js";
import { auditContextOf, callerThresholdWallet, requireFreshFactor, type WaasCaller } from "./device-caller.js";

/**
 * The published client's WaaS backup operations on the signed-in user's threshold wallets. The device's
 * shares arrive encrypted by the device (encryptedAccountCredentials): opaque here, never opened. Backing up
 * to the service and recovering run on the wallet's actor (Deps.flows.runWaasBackup / runWaasRecover), in
 * its queue with refresh and reshare, so each is of one share-set epoch. Every operation first finds the
 * wallet by the caller's environment and user: another user's wallet, or another environment's, is a 404
 * and reaches no actor.
 */

type BackupDeps = Pick<Deps, "db" | "flows" | "config" | "store" | "sessionKeys" | "sealer" | "cloudDrive" | "customerBackup">;

/** The client's backup location names (WaasBackupOptionsEnum) and where each is kept here. */
const LOCATION_OF: Record<string, ShareBackupLocation> = {
  dynamic: "service",
  googleDrive: "cloud_drive",
  icloud: "cloud_drive",
  external: "external",
  delegated: "delegated",
};
const CLIENT_LOCATION: Record<ShareBackupLocation, string> = { service: "dynamic", cloud_drive: "googleDrive", external: "external", delegated: "delegated" };

export interface KeyShareInfo {
  id: string;
  backupLocation: string;
  passwordEncrypted: boolean;
  externalKeyShareId?: string;
  encryptedAccountCredential?: string;
}

const accessOf = (caller: WaasCaller) => endUserAccess(caller.env, caller.principal.userId, caller.meta.requestId);


const step = (caller: WaasCaller, walletId: string) => ({
  environmentId: caller.env.environmentId,
  walletId,
  userId: caller.principal.userId,
  audit: auditContextOf(caller),
});

/** backupKeyShares: the credentials into the service's vault, with the server's share. */
export async function backupKeyShares(
  deps: BackupDeps,
  caller: WaasCaller,
  walletId: string,
  input: { encryptedAccountCredentials: string[]; passwordEncrypted: boolean },
): Promise<KeyShareInfo[]> {
  await callerThresholdWallet(deps, caller, walletId);
  const credentials = credentialsOf(input);
  const r = await deps.flows.runWaasBackup({ ...step(caller, walletId), credentials, toVault: true, location: "dynamic" });
  return r.stored.map((s) => ({ id: s.id, backupLocation: "dynamic", passwordEncrypted: input.passwordEncrypted }));
}

/**
 * backupKeySharesToCloudDrive: spends a backup token, backs the server's share up at the service (on the
 * actor, which answers the epoch), then uploads each credential to the user's drive with the user's access
 * token (never stored) and records where it went. The uploads follow the actor step rather than run in it:
 * the drive's token must not enter the workflow's history. A refresh between the two leaves files labelled
 * with the older epoch, which recovery of the newer one does not offer.
 */
export async function backupKeySharesToCloudDrive(
  deps: BackupDeps,
  caller: WaasCaller,
  walletId: string,
  input: { encryptedAccountCredentials: string[]; passwordEncrypted: boolean; accessToken: string; backupToken: string },
): Promise<KeyShareInfo[]> {
  await callerThresholdWallet(deps, caller, walletId);
  const credentials = credentialsOf(input);
  await spendBackupToken(deps, caller, input.backupToken);
  const { epoch } = await deps.flows.runWaasBackup({ ...step(caller, walletId), credentials, toVault: false, location: "googleDrive" });
  const drive = deps.cloudDrive;
  const env = caller.env.environmentId;
  const out: KeyShareInfo[] = [];
  for (const [i, credential] of credentials.entries()) {
    const holder = 2 + i;
    const { fileId } = await drive.upload(input.accessToken, backupFileName(walletId, epoch, holder), new TextEncoder().encode(JSON.stringify(credential)));
    const row = await deps.db.tx(async (t) => {
      await dropBackup(t, env, walletId, epoch, holder, "cloud_drive");
      return recordBackupLocation(t, env, { walletId, shareSetEpoch: epoch, holder, location: "cloud_drive", reference: fileId });
    });
    out.push({ id: row.id, backupLocation: "googleDrive", passwordEncrypted: input.passwordEncrypted, externalKeyShareId: fileId });
  }
  return out;
}

/** The drive file of one backed-up share: chosen by the service, so its shape is known (cloud-drive.ts). */
export const backupFileName = (walletId: string, epoch: number, holder: number) => `sigil-waas-${walletId}-${epoch}-${holder}.json`;

/** backupKeySharesToLocation: the device backed up itself; the service records that it did (audit + event). */
export async function backupKeySharesToLocation(deps: BackupDeps, caller: WaasCaller, walletId: string, location: string) {
  const { set } = await callerThresholdWallet(deps, caller, walletId);
  if (!(location in LOCATION_OF)) throw badRequest("invalid_backup_location", "location must be one of googleDrive, icloud, dynamic, external, delegated", { field: "location" });
  await audited(deps, accessOf(caller), (_t, record) =>
    record({
      action: "waas_wallet.backed_up",
      resourceType: "waas_wallet",
      resourceId: walletId,
      after: { walletId, userId: caller.principal.userId, location, shareSetEpoch: set.epoch, recordedOnly: true },
    }),
  );
  return { message: `backup to ${location} recorded`, walletId, location };
}

/**
 * backupKeySharesToLocations: records each location as a backup of the current epoch (the holder is the
 * one whose keygen id is given, else the device's first share): an external one by the customer's
 * externalKeyShareId; a delegated one answers the delivery deliverDelegatedShare recorded (409 before it).
 * A location recorded again at the same epoch replaces the older record. The shares are where the device
 * put them.
 */
export async function backupKeySharesToLocations(
  deps: BackupDeps,
  caller: WaasCaller,
  walletId: string,
  locations: { location: string; keygenId?: string; externalKeyShareId?: string; credential?: VaultCredential }[],
) {
  const env = caller.env.environmentId;
  const { set } = await callerThresholdWallet(deps, caller, walletId);
  const shares = await setShares(deps.db, env, set.id);
  const planned = locations.map((l, i) => {
    const where = LOCATION_OF[l.location];
    if (!where) throw badRequest("invalid_backup_location", `locations[${i}].location is not a backup location`, { field: `locations[${i}].location` });
    if (where === "service") throw badRequest("invalid_backup_location", "dynamic backups are made with backupKeyShares, which stores the shares", { field: `locations[${i}].location` });
    if (where === "external" && !l.externalKeyShareId && !l.credential)
      throw badRequest("missing_external_key_share_id", `locations[${i}] is external and needs externalKeyShareId (or the credential for the customer's endpoint)`, {
        field: `locations[${i}].externalKeyShareId`,
      });
    const holder = l.keygenId ? shares.find((s) => s.holderKeygenId === l.keygenId)?.holderIndex : 2;
    if (!holder) throw badRequest("invalid_keygen_id", `locations[${i}].keygenId is not a key of this wallet's current shares`, { field: `locations[${i}].keygenId` });
    return { ...l, where, holder, reference: l.externalKeyShareId || `${l.location}:${set.epoch}:${holder}` };
  });
  if (planned.some((p) => p.where === "delegated") && (await delegatedAccessDenied(deps.db, env, walletId))) throw delegatedAccessRefused();
  // The customer's endpoint is called before the rows are written (and outside any transaction): a refusal
  // or an outage records nothing.
  for (const p of planned) {
    if (p.where !== "external" || !p.credential) continue;
    const key = { environmentId: env, environmentName: caller.env.environmentName, walletId, shareSetEpoch: set.epoch, holder: p.holder };
    p.reference = await storeAtCustomer(deps, key, p.credential);
  }
  return audited(deps, accessOf(caller), async (t, record) => {
    const locationsWithKeyShares = [];
    for (const p of planned) {
      if (p.where === "delegated") {
        // The delivery's own row (deliverDelegatedShare), never replaced here: it is what keeps a delivery once.
        const delivered = await findShareBackup(t, env, { walletId, shareSetEpoch: set.epoch, holder: set.holders, location: "delegated" });
        if (!delivered) throw conflict("delegated_share_not_delivered", "deliver the delegated share first (deliverDelegatedShare), then record its location");
        locationsWithKeyShares.push({ location: p.location, keyShareId: delivered.id, externalKeyShareId: delivered.reference ?? "" });
        continue;
      }
      await dropBackup(t, env, walletId, set.epoch, p.holder, p.where);
      const row = await recordBackupLocation(t, env, { walletId, shareSetEpoch: set.epoch, holder: p.holder, location: p.where as Exclude<ShareBackupLocation, "service">, reference: p.reference });
      locationsWithKeyShares.push({ location: p.location, keyShareId: row.id, externalKeyShareId: row.reference });
    }
    await record({
      action: "waas_wallet.backed_up",
      resourceType: "waas_wallet",
      resourceId: walletId,
      after: { walletId, userId: caller.principal.userId, locations: planned.map((p) => p.location), shareSetEpoch: set.epoch },
    });
    return { message: "backup locations recorded", walletId, locationsWithKeyShares };
  });
}

/**
 * recoverKeyShares: the device's backups of the current epoch (the vault's with their credentials), after the
 * fresh factor an export needs (requireFreshFactor, wallet.waas.export). With a drive access token (and a
 * backup token, spent), cloud-drive backups are downloaded too, after the actor step (the drive's token must
 * not enter the workflow's history); a file no longer there is answered without its credential.
 */
export async function recoverKeyShares(
  deps: BackupDeps,
  caller: WaasCaller,
  walletId: string,
  input: { keyShareIds: string[]; accessToken?: string; backupToken?: string },
): Promise<KeyShareInfo[]> {
  await callerThresholdWallet(deps, caller, walletId);
  // The device's share comes back sealed only by its passcode, which a short passcode does not protect
  // offline: handing it out is an export of that share, gated as the key's export is.
  await requireFreshFactor(deps, caller, "wallet.waas.export", { recentSignIn: true });
  if (input.accessToken && !input.backupToken) throw badRequest("missing_backup_token", "reading a cloud drive needs a backup token", { field: "backupToken" });
  if (input.accessToken) await spendBackupToken(deps, caller, input.backupToken!);
  const r = await deps.flows.runWaasRecover({ ...step(caller, walletId), keyShareIds: input.keyShareIds });
  const drive = input.accessToken ? deps.cloudDrive : null;
  const out: KeyShareInfo[] = [];
  for (const s of r.shares) {
    if (drive && s.location === "cloud_drive" && !s.credential) {
      const content = await drive.download(input.accessToken!, backupFileName(walletId, r.epoch, s.holder));
      out.push(toInfo({ ...s, credential: content ? driveCredential(content) : null }));
    } else if (s.location === "external" && !s.credential) {
      const key = { environmentId: caller.env.environmentId, environmentName: caller.env.environmentName, walletId, shareSetEpoch: r.epoch, holder: s.holder };
      out.push(toInfo({ ...s, credential: await fetchFromCustomer(deps, key, s.reference) }));
    } else out.push(toInfo(s));
  }
  return out;
}

/** A drive file as backupKeySharesToCloudDrive wrote it; anything else is not a backup of ours. */
function driveCredential(content: Uint8Array): VaultCredential | null {
  try {
    const c = JSON.parse(new TextDecoder().decode(content)) as Partial<VaultCredential>;
    if (typeof c.encryptedAccountCredential === "string" && c.encryptedAccountCredential)
      return { encryptedAccountCredential: c.encryptedAccountCredential, passwordEncrypted: c.passwordEncrypted === true };
  } catch {
    // falls through
  }
  throw new DomainError("unprocessable", "backup_unreadable", "the cloud drive's backup file is not a key-share backup");
}

function toInfo(s: RecoveredShare): KeyShareInfo {
  return {
    id: s.id,
    backupLocation: CLIENT_LOCATION[s.location as ShareBackupLocation] ?? s.location,
    passwordEncrypted: s.credential?.passwordEncrypted ?? false,
    ...(s.location !== "service" && s.reference ? { externalKeyShareId: s.reference } : {}),
    ...(s.credential ? { encryptedAccountCredential: s.credential.encryptedAccountCredential } : {}),
  };
}

/** updateWaasWalletSettings: the user's delegated-access refusal, audited. */
export async function updateWaasWalletSettings(deps: BackupDeps, caller: WaasCaller, walletId: string, hasDeniedDelegatedAccess: boolean) {
  return audited(deps, accessOf(caller), async (t, record) => {
    if (!(await setDelegatedAccessDenied(t, caller.env.environmentId, caller.principal.userId, walletId, hasDeniedDelegatedAccess))) throw notFound("wallet");
    await record({
      action: "waas_wallet.settings_updated",
      resourceType: "waas_wallet",
      resourceId: walletId,
      after: { walletId, userId: caller.principal.userId, hasDeniedDelegatedAccess },
    });
    return { walletId, settings: { hasDeniedDelegatedAccess } };
  });
}

const delegatedAccessRefused = () => new DomainError("forbidden", "delegated_access_denied", "the wallet's user has denied delegated access");

/**
 * deliverDelegatedShare: the device encrypted its share to the environment's delegated-access key itself;
 * the service records the delivery and hands the envelope to the developer by webhook. Refused when the
 * wallet's user denied delegated access, or the envelope names a key the environment does not have.
 */
export async function deliverDelegatedShare(deps: BackupDeps, caller: WaasCaller, walletId: string, envelope: ClientDelegatedEnvelope) {
  const env = caller.env.environmentId;
  const { set } = await callerThresholdWallet(deps, caller, walletId);
  if (await delegatedAccessDenied(deps.db, env, walletId)) throw delegatedAccessRefused();
  return deps.db.tx(async (t) => {
    const r = await recordClientDelegatedShare(t, accessOf(caller), {
      walletId,
      shareSetEpoch: set.epoch,
      // The share a device delegates is its last one (TWO_OF_THREE: the third holder).
      holder: set.holders,
      userId: caller.principal.userId,
      envelope,
    });
    return { delegatedShareDeliveryId: r.deliveryId, status: "accepted", message: r.alreadyRecorded ? "already delivered for this key-share set" : "delivered by webhook" };
  });
}

/** getDelegatedAccessEncryptionPublicKey: the key devices encrypt delegated shares to (404 when none). */
export async function delegatedAccessKey(deps: Pick<Deps, "db">, caller: WaasCaller) {
  const key = await newestActiveEncryptionKey(deps.db, caller.env.environmentId);
  if (!key) throw notFound("delegated-access encryption public key");
  return { kid: key.kid, publicKey: key.publicKeyPem, alg: key.alg };
}

/** getWaasWalletWithVerifiedCredentials: the caller's wallet of this address (404 when not the caller's). */
export async function callerWalletByAddress(deps: Pick<Deps, "db">, caller: WaasCaller, address: string): Promise<{ id: string; address: string }> {
  const wallet = await userWalletByAddress(deps.db, caller.env.environmentId, caller.principal.userId, address);
  if (!wallet) throw notFound("wallet");
  return wallet;
}

function credentialsOf(input: { encryptedAccountCredentials: string[]; passwordEncrypted: boolean }): VaultCredential[] {
  if (!input.encryptedAccountCredentials.length || input.encryptedAccountCredentials.some((c) => !c))
    throw badRequest("invalid_credentials", "encryptedAccountCredentials must hold one non-empty credential per device share", { field: "encryptedAccountCredentials" });
  return input.encryptedAccountCredentials.map((c) => ({ encryptedAccountCredential: c, passwordEncrypted: input.passwordEncrypted }));
}
