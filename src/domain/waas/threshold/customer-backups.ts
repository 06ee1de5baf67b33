import { findSubscribedWebhook, findWebhook } from "../../../db/repositories/webhooks.js";
import { DomainError, unprocessable } from "../../../errors.js";
import type { CustomerBackupTarget, Deps } from "../../deps.js";
import { openWebhookSecret } from "../../webhooks/secret.js";
import type { VaultCredential } from "./backup-steps.js";

/**
 * The `external` backup location: the customer's own service. It is one of the environment's webhook
 * endpoints, subscribed to `waas_wallet.key_share_backup`: the developer creates it with the webhooks API
 * (Sigil makes its whsec_ secret, shows it once, keeps it sealed), and the service calls it directly through
 * the CustomerBackup port of Deps (src/adapters/customer-backup.ts): a signed POST stores a device's
 * credential, a signed GET reads it back. Nothing goes through the outbox, and the secret never enters a
 * workflow history (these calls run in the request, after the actor's step). A backup row's reference names
 * the endpoint: `webhook:<id>`.
 */

export const CUSTOMER_BACKUP_EVENT = "waas_wallet.key_share_backup";
const REFERENCE_PREFIX = "webhook:";

type CustomerDeps = Pick<Deps, "db" | "sealer" | "customerBackup">;

const targetOf = (deps: CustomerDeps, w: { id: string; url: string; secretSealed: string }, environmentName: "live" | "sandbox"): CustomerBackupTarget => ({
  url: w.url,
  secret: openWebhookSecret(deps.sealer, w.id, w.secretSealed),
  environmentName,
});

interface Key {
  environmentId: string;
  environmentName: "live" | "sandbox";
  walletId: string;
  shareSetEpoch: number;
  holder: number;
}

/** Stores a device's credential at the customer's endpoint; answers the backup row's reference. */
export async function storeAtCustomer(deps: CustomerDeps, key: Key, credential: VaultCredential): Promise<string> {
  const endpoint = await findSubscribedWebhook(deps.db, key.environmentId, CUSTOMER_BACKUP_EVENT);
  if (!endpoint) {
    throw unprocessable("external_backup_not_configured", `no enabled webhook endpoint of this environment subscribes to ${CUSTOMER_BACKUP_EVENT}: create one to back up at your own URL`);
  }
  const { walletId, shareSetEpoch, holder } = key;
  await deps.customerBackup.store(targetOf(deps, endpoint, key.environmentName), {
    walletId,
    shareSetEpoch,
    holder,
    encryptedShare: JSON.stringify(credential),
  });
  return `${REFERENCE_PREFIX}${endpoint.id}`;
}

/** The credential the customer's endpoint keeps for this share; null when the row is not such a backup or the customer has none. */
export async function fetchFromCustomer(deps: CustomerDeps, key: Key, reference: string | null): Promise<VaultCredential | null> {
  if (!reference?.startsWith(REFERENCE_PREFIX)) return null;
  const endpoint = await findWebhook(deps.db, key.environmentId, reference.slice(REFERENCE_PREFIX.length));
  if (!endpoint) return null;
  const { walletId, shareSetEpoch, holder } = key;
  const stored = await deps.customerBackup.fetch(targetOf(deps, endpoint, key.environmentName), { walletId, shareSetEpoch, holder });
  if (stored === null) return null;
  try {
    const c = JSON.parse(stored) as Partial<VaultCredential>;
    if (typeof c.encryptedAccountCredential === "string" && c.encryptedAccountCredential)
      return { encryptedAccountCredential: c.encryptedAccountCredential, passwordEncrypted: c.passwordEncrypted === true };
  } catch {
    // falls through
  }
  throw new DomainError("unprocessable", "backup_unreadable", "the customer's backup endpoint answered something that is not a key-share backup");
}
