import { encryptForExport } from "../../crypto/envelopes.js";
import * as embedded from "../../db/repositories/embedded-wallets.js";
import { badRequest, notFound } from "../../errors.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import { passkeyRegistrationOptions, registerPasskey } from "../passkeys/service.js";
import type { RegistrationResponseJSON } from "../passkeys/webauthn.js";
import { endUserAccess } from "../sessions/service.js";
import { mailBundle, recoveryAddress, walletAndTarget } from "./sdk-recovery.js";
import type { WalletCaller } from "./sdk-wallets.js";

/**
 * Passkey recovery of an embedded wallet's owner: a new passkey, registered only with proof of the recovery
 * mailbox. `initPasskeyRecovery` makes the passkey creation options (the existing passkey ceremony: challenge
 * bound to this session, relying party from the page's origin) and mails them as a JWE to the device's
 * target key, so the challenge is known only to a device holding that key and reading that mailbox;
 * `completePasskeyRecovery` registers the authenticator's attestation of that challenge (spent once) and
 * answers the session's new tokens.
 */

export async function initPasskeyRecovery(deps: Deps, c: WalletCaller, walletId: string, targetPublicKey: string, originHeader: string | null) {
  const { wallet, targetJwk } = await walletAndTarget(deps, c, walletId, targetPublicKey, "turnkeyRecoveryTargetPublicKey");
  const to = await recoveryAddress(deps, c);
  const options = await passkeyRegistrationOptions(deps, c.env, c.principal, originHeader);
  const bundle = await encryptForExport(targetJwk, new TextEncoder().encode(JSON.stringify(options)));
  await audited(deps, endUserAccess(c.env, c.principal.userId, c.meta.requestId), async (_t, record) => {
    await record({ action: "embedded_wallet.passkey_recovery_sent", resourceType: "wallet", resourceId: wallet.id, after: { id: wallet.id, userId: c.principal.userId } });
    await mailBundle(deps, to, "Recover your wallet passkey", bundle);
  });
  return { turnkeyRecoveryUserId: c.principal.userId };
}

/** The published client's PasskeyRegistrationCredential (it spells clientDataJson). */
export interface RecoveryAttestation {
  credentialId: string;
  attestationObject: string;
  clientDataJson: string;
  transports: string[];
}

export async function completePasskeyRecovery(
  deps: Deps,
  c: WalletCaller,
  a: { walletId: string; attestation: RecoveryAttestation | undefined; challenge: string },
  originHeader: string | null,
) {
  const wallet = await embedded.findUserEmbeddedWallet(deps.db, c.env.environmentId, c.principal.userId, a.walletId);
  if (!wallet || wallet.deleted) throw notFound("embedded wallet");
  const att = a.attestation;
  if (!att?.attestationObject || !att.clientDataJson || !att.credentialId) throw badRequest("invalid_attestation", "attestation with credentialId, attestationObject and clientDataJson is required");
  let signed: string | undefined;
  try {
    signed = JSON.parse(Buffer.from(att.clientDataJson, "base64url").toString("utf8")).challenge;
  } catch {
    signed = undefined;
  }
  if (signed !== a.challenge) throw badRequest("invalid_attestation", "the attestation does not answer this challenge");
  const response: RegistrationResponseJSON = {
    id: att.credentialId,
    rawId: att.credentialId,
    type: "public-key",
    clientExtensionResults: {},
    response: { clientDataJSON: att.clientDataJson, attestationObject: att.attestationObject, transports: att.transports as never },
  };
  return registerPasskey(deps, c.env, c.principal, response, originHeader, c.meta);
}
