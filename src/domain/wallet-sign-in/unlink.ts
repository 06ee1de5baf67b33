import * as users from "../../db/repositories/users.js";
import * as wallets from "../../db/repositories/wallets.js";
import * as repo from "../../db/repositories/wallet-sign-in.js";
import { DomainError, badRequest, notFound, unprocessable } from "../../errors.js";
import { audited } from "../audit/audit.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import { endUserAccess, renewSession } from "../sessions/service.js";
import type { PublicEnvironment } from "../tenancy/access.js";

/** Which credential to remove (the client names a wallet or a verified credential) and the next primary wallet. */
export interface UnlinkInput {
  walletId?: string;
  verifiedCredentialId?: string;
  primaryWalletId?: string;
}

/**
 * Removes one of the signed-in user's wallets or verified credentials (any format), never their last way
 * to sign in (422 last_credential). A wallet is soft-deleted as the management delete does; a removed
 * e-mail or phone also leaves the profile, so that it no longer signs this user in. Answers new tokens
 * (their credentials claim changed).
 */
export async function unlinkCredential(deps: Deps, env: PublicEnvironment, principal: EndUserPrincipal, input: UnlinkInput, requestId: string) {
  const id = input.walletId || input.verifiedCredentialId;
  if (!id)
    throw badRequest("validation_error", "invalid request: walletId or verifiedCredentialId is required (the wallet or credential to unlink)", {
      errors: [{ field: "walletId", message: "or verifiedCredentialId is required" }],
    });
  const environmentId = env.environmentId;
  const userId = principal.userId;
  await audited(deps, endUserAccess(env, userId, requestId), async (t, record) => {
    if (!(await users.lockUser(t, environmentId, userId))) throw new DomainError("unauthenticated", "invalid_session", "the session's user no longer exists");
    const target = await repo.findOwnCredential(t, environmentId, userId, id);
    if (!target) throw notFound("wallet or verified credential");
    if ((await repo.countSignInCredentials(t, environmentId, userId)) <= 1)
      throw unprocessable("last_credential", "this is your only way to sign in: link another wallet, e-mail or phone before removing it");
    if (target.kind === "wallet") {
      await wallets.softDeleteWallet(t, environmentId, target.walletId);
      const before = { userId, chain: target.chain, address: target.address };
      await record({ action: "wallet.unlinked", resourceType: "wallet", resourceId: target.walletId, before });
    } else {
      await repo.deleteCredential(t, environmentId, userId, target.credentialId);
      if (target.email) await repo.clearContact(t, environmentId, userId, "email", target.email);
      if (target.phoneE164) await repo.clearContact(t, environmentId, userId, "phone_number", target.phoneE164);
      await record({
        action: "verified_credential.deleted",
        resourceType: "verified_credential",
        resourceId: target.credentialId,
        before: { userId, format: target.format, email: target.email ?? undefined, phoneNumber: target.phoneE164 ?? undefined },
      });
    }
    if (input.primaryWalletId && input.primaryWalletId !== id && !(await repo.selectWallet(t, environmentId, userId, input.primaryWalletId)))
      throw notFound("primary wallet");
  });
  return renewSession(deps, principal);
}
