import { p256 } from "@noble/curves/nist.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { encryptForExport } from "../../crypto/envelopes.js";
import * as embedded from "../../db/repositories/embedded-wallets.js";
import * as sessionKeys from "../../db/repositories/session-keys.js";
import { findUserAggregate } from "../../db/repositories/user-aggregate.js";
import { DomainError, badRequest, notFound, unprocessable } from "../../errors.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import { endUserAccess } from "../sessions/service.js";
import { parseSessionKey, sessionKeyJwk } from "./sdk-session-keys.js";
import { UPDATE_RECOVERY_EMAIL, openSignedRequest, spendSignedRequest, type SignedRequest } from "./sdk-signed-requests.js";
import type { WalletCaller } from "./sdk-wallets.js";

/**
 * Recovery of wallet access by e-mail. The user chooses which of their verified addresses gets recovery mails
 * (a request signed with a session key); `initEmailAuth` then mails a credential bundle there: a fresh P-256
 * session key, registered for the caller's session, whose private key travels only as a JWE (ECDH-ES,
 * A256GCM) to the device's target key. So a device gets a signing key only when it holds both the target
 * key's private half and the mailbox (the Turnkey e-mail-auth flow the client speaks).
 */

/** Where recovery mails go: the chosen address while it is still a verified one of the user, else the first verified. */
export async function recoveryAddress(deps: Deps, c: WalletCaller): Promise<string> {
  const user = await findUserAggregate(deps.db, c.env.environmentId, c.principal.userId);
  const verified = (user?.credentials ?? []).filter((x) => x.format === "email" && x.email).map((x) => x.email!.toLowerCase());
  const chosen = await embedded.findRecoveryEmail(deps.db, c.env.environmentId, c.principal.userId);
  const to = chosen && verified.includes(chosen.toLowerCase()) ? chosen : verified[0];
  if (!to) throw unprocessable("recovery_email_missing", "the user has no verified e-mail address to send recovery mails to");
  return to;
}

/** Mails a bundle (a JWE only the device that asked opens) to the user's recovery address; 503 when not accepted. */
export async function mailBundle(deps: Pick<Deps, "mailer">, to: string, subject: string, bundle: string): Promise<void> {
  await deps.mailer
    .send({ to, subject, text: `Paste this bundle into the app that asked for it:\n\n${bundle}\n\nIf you did not ask for it, ignore this mail.\n` })
    .catch(() => {
      throw new DomainError("unavailable", "mail_unavailable", "the mail server did not accept the message; try again later");
    });
}

/** The caller's live embedded wallet and the device's P-256 target key (the bundle is encrypted to it). */
export async function walletAndTarget(deps: Pick<Deps, "db">, c: WalletCaller, walletId: string, targetPublicKey: string, field: string) {
  const wallet = await embedded.findUserEmbeddedWallet(deps.db, c.env.environmentId, c.principal.userId, walletId);
  if (!wallet || wallet.deleted) throw notFound("embedded wallet");
  const target = parseSessionKey(targetPublicKey);
  if (target.scheme !== "p256") throw badRequest("invalid_session_key", `${field} must be a P-256 public key`, { field });
  return { wallet, targetJwk: sessionKeyJwk(target.hex) };
}

/** Chooses the recovery address from a signed body {parameters: {email}}; it must be a verified address of the caller. */
export async function updateRecoveryEmail(deps: Deps, c: WalletCaller, signed: SignedRequest | undefined): Promise<void> {
  const { parameters, activity } = await openSignedRequest(deps, c.principal, signed, UPDATE_RECOVERY_EMAIL);
  const email = typeof parameters.email === "string" ? parameters.email.trim() : "";
  const user = await findUserAggregate(deps.db, c.env.environmentId, c.principal.userId);
  if (!user?.credentials.some((x) => x.format === "email" && x.email?.toLowerCase() === email.toLowerCase()))
    throw unprocessable("email_not_verified", "the recovery address must be one of the user's verified e-mail addresses");
  await audited(deps, endUserAccess(c.env, c.principal.userId, c.meta.requestId), async (t, record) => {
    await spendSignedRequest(t, c.principal, activity, null);
    await embedded.setRecoveryEmail(t, c.env.environmentId, c.principal.userId, email);
    await record({ action: "embedded_wallet.recovery_email_updated", resourceType: "user", resourceId: c.principal.userId, after: { userId: c.principal.userId, email } });
  });
}

/** Mails a credential bundle for the device's target key to the recovery address; answers the new key's id. */
export async function initEmailAuth(deps: Deps, c: WalletCaller, walletId: string, targetPublicKey: string) {
  const { wallet, targetJwk } = await walletAndTarget(deps, c, walletId, targetPublicKey, "turnkeyEmailAuthTargetPublicKey");
  const to = await recoveryAddress(deps, c);
  const secretKey = p256.utils.randomSecretKey();
  const apiKey = bytesToHex(p256.getPublicKey(secretKey, true));
  const bundle = await encryptForExport(targetJwk, new TextEncoder().encode(bytesToHex(secretKey)));
  secretKey.fill(0);
  await audited(deps, endUserAccess(c.env, c.principal.userId, c.meta.requestId), async (t, record) => {
    const saved = await sessionKeys.insertSessionKey(t, c.env.environmentId, { sessionId: c.principal.sessionId, userId: c.principal.userId, publicKey: apiKey });
    if (!saved) throw new DomainError("unauthenticated", "invalid_session", "the session has been revoked or has expired");
    await record({ action: "embedded_wallet.email_auth_sent", resourceType: "wallet", resourceId: wallet.id, after: { id: wallet.id, userId: c.principal.userId, sessionKey: apiKey } });
    // Inside the transaction: a mail that was not accepted leaves no key registered.
    await mailBundle(deps, to, "Your wallet sign-in bundle", bundle);
  });
  return { turnkeyUserId: c.principal.userId, turnkeyApiKeyId: apiKey };
}
