import { randomUUID } from "node:crypto";
import { sealHybridRsaAes256, type HybridEnvelope } from "../../../crypto/envelopes.js";
import type { Queryable } from "../../../db/db.js";
import { insertAudit } from "../../../db/repositories/audit.js";
import { insertEvent } from "../../../db/repositories/events.js";
import { newestActiveEncryptionKey } from "../../../db/repositories/webhook-outbox.js";
import { activeKidExists } from "../../../db/repositories/waas-wallet-backups.js";
import { unprocessable } from "../../../errors.js";
import { actorColumns } from "../../audit/audit.js";
import type { EnvironmentAccess } from "../../tenancy/access.js";
import { recordBackupLocation, type ShareBackupKey } from "./backup-vault.js";

/**
 * The delegated backup location: a key share encrypted to the environment's newest registered
 * delegated-access key as the spec's HYBRID-RSA-AES-256 envelope, and delivered to the developer by webhook
 * as the event `waas_wallet.delegated_share` (data.encryptedDelegatedShare) through the transactional
 * outbox, so the event exists exactly when the caller's transaction commits.
 *
 * The audit row says that it happened (wallet, epoch, holder, kid) but does not keep the envelope: the
 * audit trail outlives the share set, and the developer's copy is the webhook's. The backup row (location
 * `delegated`) is written first and names this delivery: a retried step finds it and emits nothing again.
 */
export const DELEGATED_SHARE_EVENT = "waas_wallet.delegated_share";

export interface DelegatedShare extends ShareBackupKey {
  /** The share, opaque here; it is only ever written encrypted to the developer's key. */
  share: Uint8Array;
  /** The wallet's user, named in the event. */
  userId: string | null;
}

export async function recordDelegatedShare(
  t: Queryable,
  access: EnvironmentAccess,
  input: DelegatedShare,
): Promise<{ deliveryId: string; envelope: HybridEnvelope | null; alreadyRecorded: boolean }> {
  const key = await newestActiveEncryptionKey(t, access.environmentId);
  if (!key)
    throw unprocessable("delegated_access_key_missing", "the environment has no delegated-access encryption public key; register one first");
  return deliver(t, access, input, key.kid, () => sealHybridRsaAes256(key.publicKeyPem, key.kid, input.share));
}

/** The device's own HYBRID-RSA-AES-256 envelope (deliverDelegatedShare): opaque here, the service cannot open it. */
export interface ClientDelegatedEnvelope {
  alg: string;
  iv: string;
  ct: string;
  tag: string;
  ek: string;
  kid?: string;
}

/**
 * The same delivery for a share the device encrypted itself: its envelope must name (by kid) an active
 * delegated-access key of this environment, else the developer could not open it (422); without a kid it
 * is taken to be for the newest key.
 */
export async function recordClientDelegatedShare(
  t: Queryable,
  access: EnvironmentAccess,
  input: ShareBackupKey & { userId: string | null; envelope: ClientDelegatedEnvelope },
): Promise<{ deliveryId: string; alreadyRecorded: boolean }> {
  const newest = await newestActiveEncryptionKey(t, access.environmentId);
  if (!newest)
    throw unprocessable("delegated_access_key_missing", "the environment has no delegated-access encryption public key; register one first");
  const kid = input.envelope.kid || newest.kid;
  if (!(await activeKidExists(t, access.environmentId, kid)))
    throw unprocessable("unknown_encryption_key", "the envelope names no active delegated-access key of this environment", { kid });
  const { alg, iv, ct, tag, ek } = input.envelope;
  const r = await deliver(t, access, input, kid, () => ({ alg, iv, ct, tag, ek, kid }) as HybridEnvelope);
  return { deliveryId: r.deliveryId, alreadyRecorded: r.alreadyRecorded };
}

/** The backup row, then (first time only) the audit row without the envelope and the event with it. */
async function deliver(
  t: Queryable,
  access: EnvironmentAccess,
  input: ShareBackupKey & { userId: string | null },
  kid: string,
  envelopeOf: () => HybridEnvelope,
): Promise<{ deliveryId: string; envelope: HybridEnvelope | null; alreadyRecorded: boolean }> {
  const { environmentId, organizationId } = access;
  const { walletId, shareSetEpoch, holder } = input;
  const deliveryId = randomUUID();
  const backup = await recordBackupLocation(t, environmentId, { walletId, shareSetEpoch, holder, location: "delegated", reference: deliveryId });
  if (backup.reference !== deliveryId) return { deliveryId: backup.reference, envelope: null, alreadyRecorded: true };

  const envelope = envelopeOf();
  const auditId = await insertAudit(t, {
    organizationId,
    environmentId,
    ...actorColumns(access.actor),
    action: DELEGATED_SHARE_EVENT,
    resourceType: "waas_wallet",
    resourceId: walletId,
    changes: { after: { walletId, shareSetEpoch, holder, kid, deliveryId } },
    requestId: access.actor.requestId || null,
  });
  await insertEvent(t, {
    environmentId,
    organizationId,
    eventName: DELEGATED_SHARE_EVENT,
    source: "service",
    userId: input.userId,
    resourceType: "waas_wallet",
    resourceId: walletId,
    data: { walletId, userId: input.userId, shareSetEpoch, holder, deliveryId, encryptedDelegatedShare: envelope },
    auditId,
  });
  return { deliveryId, envelope, alreadyRecorded: false };
}
