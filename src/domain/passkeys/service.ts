import * as repo from "../../db/repositories/passkeys.js";
import { notFound } from "../../errors.js";
import { audited } from "../audit/audit.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import { endUserAccess, renewSession, type ClientMeta } from "../sessions/service.js";
import { awaitsSecondFactor } from "../sessions/tokens.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { issueChallenge, takeChallenge } from "./challenges.js";
import { passkeySnapshot, storeKey, webAuthnUserOf } from "./keys.js";
import { relyingPartyOf } from "./relying-party.js";
import { authenticationOptions, registrationOptions, verifyRegistration, type RegistrationResponseJSON } from "./webauthn.js";

/**
 * The signed-in user's sign-in passkeys: registration (options, then the authenticator's attestation),
 * listing, renaming and removal. Every ceremony runs from one of the environment's origins (its Origin
 * header) and its challenge is bound to the caller's session.
 */

/** Creation options for a new passkey of the signed-in user; the challenge waits 5 minutes for registerPasskey. */
export async function passkeyRegistrationOptions(deps: Deps, env: PublicEnvironment, principal: EndUserPrincipal, originHeader: string | null) {
  const rp = await relyingPartyOf(deps, env.environmentId, originHeader);
  const user = await webAuthnUserOf(deps.db, env.environmentId, principal.userId);
  const exclude = await repo.listCredentialIds(deps.db, env.environmentId, principal.userId);
  const challenge = await issueChallenge(deps.store, env.environmentId, { purpose: "register", rp, userId: principal.userId, sessionId: principal.sessionId });
  return registrationOptions(rp, user, challenge, exclude);
}

/** Verifies the attestation and stores the passkey (user.passkey.created); answers new tokens for the session. */
export async function registerPasskey(
  deps: Deps,
  env: PublicEnvironment,
  principal: EndUserPrincipal,
  response: RegistrationResponseJSON,
  originHeader: string | null,
  meta: ClientMeta,
) {
  const rp = await relyingPartyOf(deps, env.environmentId, originHeader);
  const { challenge, record: issued } = await takeChallenge(deps.store, env.environmentId, response.response.clientDataJSON, {
    purpose: "register",
    origin: rp.origin,
    userId: principal.userId,
    sessionId: principal.sessionId,
  });
  const key = await verifyRegistration(response, challenge, issued.rp);
  const passkey = await audited(deps, endUserAccess(env, principal.userId, meta.requestId), (t, record) =>
    storeKey(t, record, env, principal.userId, key, { rp: issued.rp, meta, mfaDeviceId: null }),
  );
  return { passkey, ...(await renewSession(deps, principal)) };
}

/**
 * Request options for the signed-in user (a step-up, or the second factor of passkey MFA): their keys
 * allowed (only their MFA devices' while the session owes its second factor: no other key passes it), the
 * challenge bound to this session.
 */
export async function passkeyAuthenticationOptions(deps: Deps, env: PublicEnvironment, principal: EndUserPrincipal, originHeader: string | null, rpId?: string) {
  const rp = await relyingPartyOf(deps, env.environmentId, originHeader, rpId);
  const allow = awaitsSecondFactor(principal.scope)
    ? await repo.listMfaPasskeys(deps.db, env.environmentId, principal.userId)
    : await repo.listCredentialIds(deps.db, env.environmentId, principal.userId);
  const challenge = await issueChallenge(deps.store, env.environmentId, { purpose: "authenticate", rp, userId: principal.userId, sessionId: principal.sessionId });
  return authenticationOptions(rp, challenge, allow);
}

export function listPasskeys(deps: Deps, env: PublicEnvironment, principal: EndUserPrincipal): Promise<repo.PasskeyRecord[]> {
  return repo.listSignInPasskeys(deps.db, env.environmentId, principal.userId);
}

/** Renames one of the user's passkeys (user.passkey.updated); an empty alias clears it. */
export async function renamePasskey(deps: Deps, env: PublicEnvironment, principal: EndUserPrincipal, passkeyId: string, alias: string, requestId: string) {
  return audited(deps, endUserAccess(env, principal.userId, requestId), async (t, record) => {
    const before = await repo.findSignInPasskey(t, env.environmentId, principal.userId, passkeyId);
    const after = before && (await repo.renamePasskey(t, env.environmentId, principal.userId, passkeyId, alias || null));
    if (!before || !after) throw notFound("passkey");
    await record({ action: "user.passkey.updated", resourceType: "passkey", resourceId: passkeyId, before: passkeySnapshot(before), after: passkeySnapshot(after) });
    return after;
  });
}

/** Removes one of the user's passkeys (user.passkey.deleted): it signs nobody in any more. */
export async function deletePasskey(deps: Deps, env: PublicEnvironment, principal: EndUserPrincipal, passkeyId: string, requestId: string): Promise<void> {
  await audited(deps, endUserAccess(env, principal.userId, requestId), async (t, record) => {
    const deleted = await repo.deleteSignInPasskey(t, env.environmentId, principal.userId, passkeyId);
    if (!deleted) throw notFound("passkey");
    await record({ action: "user.passkey.deleted", resourceType: "passkey", resourceId: passkeyId, before: passkeySnapshot(deleted) });
  });
}
