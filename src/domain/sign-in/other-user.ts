import { DomainError } from "../../errors.js";
import type { Deps } from "../deps.js";
import { owesSecondFactor } from "../mfa/factors.js";
import { isUserMfaToken, takeUserMfaToken } from "../mfa/mfa-token.js";
import { firstFactorOf, type ProvenCredential } from "./credentials.js";
import { checkSignInPolicy } from "./policy.js";

/**
 * Taking another user's credential (linking it, transferring their wallet, merging them in) is signing in as
 * that user with it: it passes what their sign-in would. The environment's sign-in policy for that
 * credential (methods, allowlists, block lists) refuses as it would refuse the sign-in; and when a sign-in of
 * theirs with it would owe a second factor, the caller must bring that user's own proof of it: an mfaToken
 * made by a session of theirs that has just passed their factor (x-mfa-auth-token). A first factor alone
 * (their mailbox, their wallet's signature) never moves their account.
 */

const otherUserSecondFactorRequired = () =>
  new DomainError(
    "forbidden",
    "other_user_second_factor_required",
    "this credential's user must pass their second factor: sign in as them, pass it with createMfaToken, and send that mfaToken in x-mfa-auth-token",
  );

/** The other user's sign-in policy with this credential (throws its refusal), and whether it owes a factor. */
export async function judgeOtherUserSignIn(
  deps: Pick<Deps, "db" | "sessionKeys">,
  environmentId: string,
  otherUserId: string,
  credential: ProvenCredential,
): Promise<{ secondFactorDue: boolean }> {
  await checkSignInPolicy(deps.db, environmentId, credential, { newUser: false });
  const { mfa } = await deps.sessionKeys.policy(environmentId);
  return { secondFactorDue: await owesSecondFactor(deps.db, mfa, environmentId, otherUserId, firstFactorOf(credential)) };
}

/**
 * Checks, as of now, that the other user's credential may be taken: their policy, and their second factor
 * when it is due (403 other_user_second_factor_required without a live mfaToken of theirs). Answers the
 * step that spends that token: the caller runs it last inside the transaction that moves anything, so that
 * one token moves one thing, and a refusal before it leaves the token for a retry.
 */
export async function authorizeTakingOtherUsersCredential(
  deps: Pick<Deps, "db" | "sessionKeys" | "store">,
  environmentId: string,
  otherUserId: string,
  credential: ProvenCredential,
  mfaToken: string | null,
): Promise<() => Promise<void>> {
  const { secondFactorDue } = await judgeOtherUserSignIn(deps, environmentId, otherUserId, credential);
  if (!secondFactorDue) return async () => {};
  if (!mfaToken || !(await isUserMfaToken(deps.store, environmentId, otherUserId, mfaToken))) throw otherUserSecondFactorRequired();
  return async () => {
    if (!(await takeUserMfaToken(deps.store, environmentId, otherUserId, mfaToken))) throw otherUserSecondFactorRequired();
  };
}
