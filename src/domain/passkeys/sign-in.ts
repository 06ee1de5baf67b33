import * as repo from "../../db/repositories/passkeys.js";
import { unprocessable } from "../../errors.js";
import type { Deps } from "../deps.js";
import type { ClientMeta } from "../sessions/service.js";
import { signInWith, type SignInResult } from "../sign-in/pipeline.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { issueChallenge, takeChallenge } from "./challenges.js";
import { useKey } from "./keys.js";
import { relyingPartyOf } from "./relying-party.js";
import { authenticationOptions, userHandleOf, type AuthenticationResponseJSON } from "./webauthn.js";
import { observedSignIn } from "../sign-in/observed.js";

/**
 * Request options for signing in with a passkey: nobody is named (the authenticator offers the user's
 * discoverable credentials for this RP id), so the answer says whose key it is.
 */
export async function passkeySignInOptions(deps: Deps, env: PublicEnvironment, originHeader: string | null, rpId?: string) {
  const rp = await relyingPartyOf(deps, env.environmentId, originHeader, rpId);
  const challenge = await issueChallenge(deps.store, env.environmentId, { purpose: "sign-in", rp });
  return authenticationOptions(rp, challenge, []);
}

/**
 * Signs in with a passkey assertion: the challenge is used up, the key it names must be a sign-in passkey
 * of this environment (an MFA device's key is a second factor only), its signature and counter check out;
 * then the one sign-in pipeline opens the session of the key's user (never creates one).
 */
export async function signInWithPasskey(
  deps: Deps,
  env: PublicEnvironment,
  response: AuthenticationResponseJSON,
  originHeader: string | null,
  meta: ClientMeta,
): Promise<SignInResult> {
  return observedSignIn(deps, "passkey", async () => {
    const rp = await relyingPartyOf(deps, env.environmentId, originHeader);
    const { challenge, record } = await takeChallenge(deps.store, env.environmentId, response.response.clientDataJSON, { purpose: "sign-in", origin: rp.origin });
    const stored = await repo.findPasskeyByCredentialId(deps.db, env.environmentId, response.id);
    if (!stored || stored.mfaDeviceId) throw unprocessable("unknown_passkey", "no passkey of this environment has this credential id");
    // The authenticator names the user it holds the key for; it must be the key's owner.
    if (response.response.userHandle && response.response.userHandle !== userHandleOf(stored.userId))
      throw unprocessable("invalid_passkey", "the passkey answer's user handle is not its owner's");
    await useKey(deps, env, stored, response, challenge, record.rp, meta);
    return signInWith(deps, env, { kind: "passkey", userId: stored.userId, passkeyId: stored.id }, meta);
  });
}
