import { SignJWT } from "jose";
import { encryptForExport } from "../../crypto/envelopes.js";
import { openWalletKey } from "../../crypto/wallet-keys.js";
import * as embedded from "../../db/repositories/embedded-wallets.js";
import * as sessionKeys from "../../db/repositories/session-keys.js";
import { conflict, notFound, unprocessable } from "../../errors.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import { endUserAccess } from "../sessions/service.js";
import { requireFreshFactor } from "../waas/threshold/device-caller.js";
import { issuerOf } from "../sessions/tokens.js";
import { parseSessionKey, sessionKeyJwk } from "./sdk-session-keys.js";
import type { WalletCaller } from "./sdk-wallets.js";

/**
 * Export of a V1 embedded wallet's private key, and the short-lived auth token of a wallet signer.
 *
 * The export goes to the P-256 session key the device registered for this session (the client's export call
 * carries no key of its own): a JWE compact (ECDH-ES, A256GCM) whose plaintext is the private key's 32 bytes
 * (the secp256k1 scalar or the ed25519 seed). Only the device holding that key's private half opens it. An
 * activity id counts once (recorded in the export's transaction: a replay, or a concurrent twin, is 409);
 * the export is audited as wallet.exported (the event of the same name goes out with it). Where the
 * environment's MFA settings require a fresh factor for wallet.waas.export, so does this export.
 */

export async function exportEmbeddedWallet(deps: Deps, c: WalletCaller, walletId: string, activityId: string, mfaToken: string | null): Promise<string> {
  const env = c.env.environmentId;
  // The same rule as the threshold wallets' export: when the environment requires a fresh factor for
  // wallet.waas.export (the client's only export action), an mfaToken of this session or a recent sign-in.
  await requireFreshFactor(deps, { ...c, mfaToken }, "wallet.waas.export", { recentSignIn: true });
  const wallet = await embedded.findUserEmbeddedWallet(deps.db, env, c.principal.userId, walletId);
  if (!wallet || wallet.deleted) throw notFound("embedded wallet");
  const sessionKey = await sessionKeys.latestSessionKey(deps.db, env, c.principal.userId, c.principal.sessionId);
  if (!sessionKey || parseSessionKey(sessionKey).scheme !== "p256")
    throw unprocessable("session_key_required", "register a P-256 session key for this session first: the export is encrypted to it");
  const key = await embedded.findEmbeddedWalletKey(deps.db, env, wallet.id);
  if (!key) throw unprocessable("wallet_key_not_held", "the service holds no key for this wallet");
  return audited(deps, endUserAccess(c.env, c.principal.userId, c.meta.requestId), async (t, record) => {
    if (!(await embedded.recordActivityOnce(t, env, { activity: `export:${activityId}`, userId: c.principal.userId, walletId: wallet.id })))
      throw conflict("export_activity_used", "this export activity has been used already: start a new one");
    const privateKey = openWalletKey(deps.sealer, key.privateKeySealed, `wallet:${wallet.id}`);
    try {
      const bundle = await encryptForExport(sessionKeyJwk(sessionKey), privateKey);
      await record({
        action: "wallet.exported",
        resourceType: "wallet",
        resourceId: wallet.id,
        after: { id: wallet.id, userId: c.principal.userId, chain: wallet.chain, activityId, sessionKey },
      });
      return bundle;
    } finally {
      privateKey.fill(0);
    }
  });
}

/** How long a wallet signer's auth token lives. */
const AUTH_TOKEN_SECONDS = 300;

/**
 * A token that proves the caller's live session to a wallet signer for a few minutes: signed with the
 * environment's session key (so the environment's JWKS verifies it), audience `embedded-wallet:<type>`.
 */
export async function walletAuthToken(deps: Pick<Deps, "sessionKeys">, c: WalletCaller, type: string): Promise<string> {
  const key = await deps.sessionKeys.signingKey(c.env.environmentId);
  return new SignJWT({ sid: c.principal.sessionId, environment_id: c.env.environmentId })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT" })
    .setIssuer(issuerOf(c.env.environmentId))
    .setSubject(c.principal.userId)
    .setAudience(`embedded-wallet:${type || "mpc"}`)
    .setIssuedAt()
    .setExpirationTime(Math.min(Math.floor(Date.now() / 1000) + AUTH_TOKEN_SECONDS, c.principal.expiresAt))
    .sign(key.key);
}
