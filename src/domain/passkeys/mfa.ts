import { randomUUID } from "node:crypto";
import * as repo from "../../db/repositories/passkeys.js";
import type { SignedInUserRecord } from "../../db/repositories/user-aggregate.js";
import { DomainError, unprocessable } from "../../errors.js";
import { audited } from "../audit/audit.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import { checkEnrolment, requireMethod } from "../mfa/caller.js";
import { factorLock } from "../mfa/lockout.js";
import { passSecondFactor } from "../mfa/pass.js";
import { endUserAccess, renewSession, type ClientMeta, type SessionTokens } from "../sessions/service.js";
import { awaitsSecondFactor } from "../sessions/tokens.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { issueChallenge, takeChallenge } from "./challenges.js";
import { storeKey, useKey, webAuthnUserOf } from "./keys.js";
import { relyingPartyOf } from "./relying-party.js";
import { registrationOptions, verifyRegistration, type AuthenticationResponseJSON, type RegistrationResponseJSON } from "./webauthn.js";

/**
 * Passkeys as a second factor: a passkey MFA device is a user_mfa_devices row (type 'passkey') with its
 * key in user_passkeys. Enrolling under a session that still waits for its second factor is allowed only
 * while the user has no verified factor (first enrolment when the environment requires MFA), and then
 * counts as passing it; otherwise a new device needs a full session.
 */

interface MfaOptions {
  createMfaToken?: { singleUse?: boolean };
}

/** The device id to register and its creation options; the challenge is bound to the session and that id. */
export async function mfaPasskeyRegistrationOptions(deps: Deps, env: PublicEnvironment, principal: EndUserPrincipal, originHeader: string | null) {
  await checkPasskeyEnrolment(deps, env, principal);
  const rp = await relyingPartyOf(deps, env.environmentId, originHeader);
  const user = await webAuthnUserOf(deps.db, env.environmentId, principal.userId);
  const exclude = await repo.listCredentialIds(deps.db, env.environmentId, principal.userId);
  const deviceId = randomUUID();
  const challenge = await issueChallenge(deps.store, env.environmentId, {
    purpose: "mfa-register",
    rp,
    userId: principal.userId,
    sessionId: principal.sessionId,
    deviceId,
  });
  return { deviceId, registration: await registrationOptions(rp, user, challenge, exclude) };
}

/**
 * Verifies the attestation for the device announced by the options and stores the verified device with its
 * key (user.mfa_device.created, user.mfa_device.verified, user.passkey.created). A session waiting for
 * its second factor then passes it with this device; a full one is renewed.
 */
export async function registerMfaPasskey(
  deps: Deps,
  env: PublicEnvironment,
  principal: EndUserPrincipal,
  input: { deviceId: string; response: RegistrationResponseJSON },
  originHeader: string | null,
  meta: ClientMeta,
): Promise<{ tokens: SessionTokens; user: SignedInUserRecord; mfaToken?: string }> {
  const rp = await relyingPartyOf(deps, env.environmentId, originHeader);
  const { challenge, record: issued } = await takeChallenge(deps.store, env.environmentId, input.response.response.clientDataJSON, {
    purpose: "mfa-register",
    origin: rp.origin,
    userId: principal.userId,
    sessionId: principal.sessionId,
  });
  if (issued.deviceId !== input.deviceId) throw unprocessable("invalid_challenge", "the answer is for another device than the registration options announced");
  await checkPasskeyEnrolment(deps, env, principal);
  const key = await verifyRegistration(input.response, challenge, issued.rp);
  await audited(deps, endUserAccess(env, principal.userId, meta.requestId), async (t, record) => {
    const device = await repo.insertPasskeyMfaDevice(t, env.environmentId, principal.userId, input.deviceId, null).catch((err: { code?: string }) => {
      throw err.code === "23505" ? new DomainError("conflict", "mfa_device_race", "another device was just enrolled for this user; try again") : err;
    });
    const snapshot = { userId: principal.userId, deviceId: device.id, type: "passkey", isDefault: device.isDefault };
    await record({ action: "user.mfa_device.created", resourceType: "mfa_device", resourceId: device.id, after: snapshot });
    await storeKey(t, record, env, principal.userId, key, { rp: issued.rp, meta, mfaDeviceId: device.id });
    await record({ action: "user.mfa_device.verified", resourceType: "mfa_device", resourceId: device.id, after: snapshot });
  });
  if (awaitsSecondFactor(principal.scope)) return passSecondFactor(deps, env, principal, { type: "passkey", deviceId: input.deviceId }, meta);
  return renewSession(deps, principal);
}

/**
 * Passes the second factor with a passkey MFA device: an assertion answering this session's challenge
 * (getPasskeyAuthenticationOptions) by the key of one of the user's verified passkey devices. Five wrong
 * answers lock the factor (growing delay).
 */
export async function authenticateWithMfaPasskey(
  deps: Deps,
  env: PublicEnvironment,
  principal: EndUserPrincipal,
  response: AuthenticationResponseJSON,
  originHeader: string | null,
  meta: ClientMeta,
  opts: MfaOptions = {},
) {
  const rp = await relyingPartyOf(deps, env.environmentId, originHeader);
  const lock = factorLock(deps.store, env.environmentId, principal.userId, "passkey");
  await lock.check();
  try {
    const { challenge, record } = await takeChallenge(deps.store, env.environmentId, response.response.clientDataJSON, {
      purpose: "authenticate",
      origin: rp.origin,
      userId: principal.userId,
      sessionId: principal.sessionId,
    });
    const stored = (await repo.listMfaPasskeys(deps.db, env.environmentId, principal.userId)).find((k) => k.credentialId === response.id);
    if (!stored) throw unprocessable("unknown_passkey", "this passkey is not one of your passkey MFA devices");
    await useKey(deps, env, stored, response, challenge, record.rp, meta);
    await lock.passed();
    return await passSecondFactor(deps, env, principal, { type: "passkey", deviceId: stored.mfaDeviceId }, meta, opts);
  } catch (err) {
    if (err instanceof DomainError && err.kind === "unprocessable") await lock.failed();
    throw err;
  }
}

/** A passkey device only where the environment offers it, and under a waiting session only as the first device. */
async function checkPasskeyEnrolment(deps: Deps, env: PublicEnvironment, principal: EndUserPrincipal): Promise<void> {
  const { mfa } = await deps.sessionKeys.policy(env.environmentId);
  requireMethod(mfa, "passkey");
  await checkEnrolment(deps.db, mfa, principal);
}
