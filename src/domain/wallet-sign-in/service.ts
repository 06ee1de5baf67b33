import * as signInRepo from "../../db/repositories/sign-in.js";
import * as users from "../../db/repositories/users.js";
import * as repo from "../../db/repositories/wallet-sign-in.js";
import { DomainError, unprocessable } from "../../errors.js";
import { audited } from "../audit/audit.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import { endUserAccess, renewSession, type ClientMeta } from "../sessions/service.js";
import { linkCredential, signInWith, type SignInResult } from "../sign-in/pipeline.js";
import { awaitsSecondFactor, mfaRequired } from "../sessions/tokens.js";
import { authorizeTakingOtherUsersCredential } from "../sign-in/other-user.js";
import { rememberPendingMerge } from "../sign-in/pending-merge.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { proveWallet, type WalletProofInput } from "./proof.js";
import { chainAliases } from "../wallets/addresses.js";
import { observedSignIn } from "../sign-in/observed.js";

/** Signs in with a signed message: the wallet's user, or a new user holding the wallet. */
export async function signInWithWallet(deps: Deps, env: PublicEnvironment, input: WalletProofInput, meta: ClientMeta): Promise<SignInResult> {
  return observedSignIn(deps, "wallet", async () => {
    const credential = await proveWallet(deps, env, input);
    return signInWith(deps, env, credential, meta);
  });
}

/** Adds the proven wallet to the signed-in user (the pipeline's link: another user's wallet is 422). */
export async function linkWallet(deps: Deps, env: PublicEnvironment, principal: EndUserPrincipal, input: WalletProofInput, meta: ClientMeta) {
  const credential = await proveWallet(deps, env, input);
  return linkCredential(deps, env, principal, credential, meta);
}

/**
 * Moves a wallet another user holds to the signed-in user, on two proofs: the caller's session and a
 * fresh signature of the wallet. Refused when the wallet is the other user's last way to sign in (they
 * would be locked out of an account nobody can reach): the proof is then remembered for the session as a
 * pending merge, so that the client can merge the two users instead (mergeUsers). A wallet nobody holds
 * is simply linked; one the caller already holds changes nothing.
 *
 * Taking another user's wallet is signing in as them with it: the caller's session must be a full one, the
 * other user's sign-in policy decides, and when their sign-in owes a second factor `mfaToken` must be an
 * mfaToken of theirs (403 other_user_second_factor_required), spent by the transfer that happens.
 */
export async function transferWallet(
  deps: Deps,
  env: PublicEnvironment,
  principal: EndUserPrincipal,
  input: WalletProofInput,
  meta: ClientMeta,
  mfaToken: string | null = null,
) {
  if (awaitsSecondFactor(principal.scope)) throw mfaRequired("pass your second factor before taking a wallet");
  const credential = await proveWallet(deps, env, input);
  if (credential.kind !== "wallet") throw new Error("a wallet proof proved something else");
  const environmentId = env.environmentId;
  const owner = await signInRepo.findWalletOwner(deps.db, environmentId, chainAliases(credential.chain), credential.address);
  if (!owner) return linkCredential(deps, env, principal, credential, meta);
  if (owner.userId !== principal.userId) {
    const spendProof = await authorizeTakingOtherUsersCredential(deps, environmentId, owner.userId, credential, mfaToken);
    await audited(deps, endUserAccess(env, principal.userId, meta.requestId), async (t, record) => {
      // Both users locked in one order (by id), so a transfer the other way cannot deadlock with this one.
      for (const id of [principal.userId, owner.userId].sort())
        if (!(await users.lockUser(t, environmentId, id)) && id === principal.userId)
          throw new DomainError("unauthenticated", "invalid_session", "the session's user no longer exists");
      const wallet = await repo.lockWallet(t, environmentId, owner.walletId);
      if (!wallet || wallet.userId !== owner.userId)
        throw new DomainError("conflict", "credential_race", "this wallet changed hands meanwhile; try again");
      if ((await repo.countSignInCredentials(t, environmentId, owner.userId)) <= 1)
        throw unprocessable(
          "last_credential_of_other_user",
          "this wallet is the other user's only way to sign in: merge the two users instead of moving the wallet",
          { otherUserId: owner.userId },
        );
      await repo.moveWallet(t, environmentId, wallet.walletId, owner.userId, principal.userId);
      await signInRepo.recordUserVisit(t, environmentId, principal.userId, owner.credentialId);
      const what = { chain: credential.chain, address: credential.address, walletName: credential.walletName };
      // The event's data is its snapshot: unlinked names the user who lost the wallet, linked the one who got it.
      const resource = { resourceType: "wallet", resourceId: wallet.walletId };
      await record({ action: "wallet.unlinked", ...resource, before: { userId: owner.userId, ...what, transferredTo: principal.userId } });
      await record({ action: "wallet.linked", ...resource, after: { userId: principal.userId, ...what, transferredFrom: owner.userId } });
      // Last, once nothing else can refuse: the other user's proof is spent by the transfer that commits.
      await spendProof();
    }).catch(async (err) => {
      // The proof is good: remember it, so that the client can merge the two users next (mergeUsers).
      if (err instanceof DomainError && err.code === "last_credential_of_other_user")
        await rememberPendingMerge(deps.store, principal, { credential, otherUserId: owner.userId });
      throw err;
    });
  }
  return renewSession(deps, principal);
}
