import { signedInWithin } from "../../../db/repositories/sessions.js";
import { userWalletCurrentSet } from "../../../db/repositories/waas-share-sets.js";
import { notFound } from "../../../errors.js";
import type { EndUserPrincipal } from "../../auth/principal.js";
import type { Deps } from "../../deps.js";
import { mfaPolicy } from "../../mfa/caller.js";
import { redeemMfaToken } from "../../mfa/mfa-token.js";
import type { ClientMeta } from "../../sessions/service.js";
import type { PublicEnvironment } from "../../tenancy/access.js";
import type { BackupAuditContext } from "./backup-steps.js";

/** Who calls a WaaS operation: the session's user in the environment the path names, with its mfaToken if sent. */
export interface WaasCaller {
  env: PublicEnvironment;
  principal: EndUserPrincipal;
  meta: ClientMeta;
  /** The x-mfa-auth-token header: proof of a fresh second factor (createMfaToken). */
  mfaToken: string | null;
}

/** A sign-in this recent stands for a fresh factor where the operation allows it (export). */
export const RECENT_SIGN_IN_SECONDS = 300;

/**
 * The environment's MFA settings name the wallet actions that need a fresh second factor
 * (`security.mfa.actions`, the client's MFAAction: wallet.waas.sign / export / reshare / refresh). For such
 * an action the caller sends an mfaToken of this session (spent when single use); for an export a sign-in
 * of the last five minutes does as well. Actions the settings do not require pass.
 */
export async function requireFreshFactor(
  deps: Pick<Deps, "db" | "store" | "sessionKeys">,
  caller: WaasCaller,
  action: string,
  opts: { recentSignIn?: boolean } = {},
): Promise<void> {
  const policy = await mfaPolicy(deps, caller);
  const required = policy.enabled && policy.actions.some((a) => a.action === action && a.required);
  if (!required) return;
  if (opts.recentSignIn && !caller.mfaToken) {
    const { environmentId, userId, sessionId } = caller.principal;
    if (await signedInWithin(deps.db, environmentId, userId, sessionId, RECENT_SIGN_IN_SECONDS)) return;
  }
  await redeemMfaToken(deps, caller, caller.mfaToken);
}

/**
 * The caller's threshold wallet and its current share set: the one tenancy check of every WaaS operation,
 * made before any room opens or any actor is reached. Another user's or environment's wallet: 404.
 */
export async function callerThresholdWallet(deps: Pick<Deps, "db">, caller: WaasCaller, walletId: string) {
  const found = await userWalletCurrentSet(deps.db, caller.env.environmentId, caller.principal.userId, walletId);
  if (!found) throw notFound("wallet");
  return found;
}

/** Who a room's operation is audited as (it travels with the room: an actor's step has no request context). */
export const auditContextOf = (caller: WaasCaller): BackupAuditContext => ({
  userId: caller.principal.userId,
  organizationId: caller.env.organizationId,
  projectId: caller.env.projectId,
  environmentName: caller.env.environmentName,
  requestId: caller.meta.requestId,
});
