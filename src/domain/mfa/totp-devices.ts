import { randomUUID } from "node:crypto";
import * as mfa from "../../db/repositories/mfa.js";
import { findEnvironmentRecord } from "../../db/repositories/projects.js";
import * as users from "../../db/repositories/users.js";
import type { UserMfaDeviceRecord } from "../../db/repositories/user-mfa-devices.js";
import { notFound, unprocessable } from "../../errors.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import { effectiveSettings } from "../environments/settings.js";
import { endUserAccess } from "../sessions/service.js";
import { checkEnrolment, mfaPolicy, requireMethod, type MfaCaller } from "./caller.js";
import { deviceSnapshot } from "./devices.js";
import { factorLock } from "./lockout.js";
import { passSecondFactor } from "./pass.js";
import { newTotpSecret, totpStepOf, totpUri } from "./totp.js";

/**
 * TOTP devices: enrolment (a secret made here, sealed at rest and bound to the device id, shown once with
 * its otpauth:// URI), its verification with a first code, and authentication with the codes that follow.
 */

/** Binds a sealed TOTP secret to its device row (a sealed value copied to another row does not open). */
export const totpSecretAad = (deviceId: string) => `mfa_device:${deviceId}:totp_secret`;

const invalidCode = () => unprocessable("invalid_mfa_code", "this is not a current code of the authenticator app");
const usedCode = () => unprocessable("mfa_code_already_used", "this code (or a later one) was already accepted: wait for the next code");

/** The environment's display name (general.displayName), else the service's. */
async function issuerName(deps: Pick<Deps, "db">, environmentId: string): Promise<string> {
  const env = await findEnvironmentRecord(deps.db, environmentId);
  const name = env ? (effectiveSettings(env.settings).general as { displayName?: string }).displayName : undefined;
  return name?.trim() || "Sigil";
}

export async function registerTotpDevice(deps: Deps, caller: MfaCaller): Promise<{ id: string; secret: string; uri: string }> {
  const { environmentId } = caller.env;
  const { userId } = caller.principal;
  const policy = await mfaPolicy(deps, caller);
  requireMethod(policy, "totp");
  const secret = newTotpSecret();
  const id = randomUUID();
  const user = await audited(deps, endUserAccess(caller.env, userId, caller.meta.requestId), async (t, record) => {
    const u = await users.lockUser(t, environmentId, userId);
    if (!u) throw notFound("user");
    await checkEnrolment(t, policy, caller.principal);
    const device = await mfa.insertPendingTotpDevice(t, environmentId, userId, { id, secretSealed: deps.sealer.seal(secret, totpSecretAad(id)) });
    await record({ action: "user.mfa_device.created", resourceType: "mfa_device", resourceId: id, after: deviceSnapshot(device) });
    return u;
  });
  // What an authenticator app lists: the app's name (the environment's display name) and the user's e-mail.
  return { id, secret, uri: totpUri(secret, await issuerName(deps, environmentId), user.email ?? user.id) };
}

/**
 * Verifies the pending TOTP enrolment with a code of the app: the device becomes usable (and the default
 * when the user has none). This proves the app holds the secret; it is not an authentication: the client
 * then passes the factor with authMfaTotpDevice, which may use this same code once (the device remembers
 * the step before it), so enrolling does not make the user wait for the next code. Answering tokens here
 * is not possible anyway: the client's response for this operation is the device.
 */
export async function verifyTotpRegistration(deps: Deps, caller: MfaCaller, code: string): Promise<UserMfaDeviceRecord> {
  const { environmentId } = caller.env;
  const { userId } = caller.principal;
  const policy = await mfaPolicy(deps, caller);
  requireMethod(policy, "totp");
  return audited(deps, endUserAccess(caller.env, userId, caller.meta.requestId), async (t, record) => {
    if (!(await users.lockUser(t, environmentId, userId))) throw notFound("user");
    const pending = await mfa.findPendingTotpDevice(t, environmentId, userId);
    if (!pending) throw notFound("pending TOTP device (register one first)");
    await checkEnrolment(t, policy, caller.principal);
    const step = totpStepOf(deps.sealer.open(pending.secretSealed, totpSecretAad(pending.id)), code);
    if (step === null) throw invalidCode();
    if (!(await mfa.acceptTotpCounter(t, environmentId, userId, pending.id, step - 1))) throw usedCode();
    const verified = (await mfa.findDevice(t, environmentId, userId, pending.id))!;
    await record({ action: "user.mfa_device.verified", resourceType: "mfa_device", resourceId: verified.id, after: deviceSnapshot(verified) });
    return verified;
  });
}

/**
 * Passes the second factor with a code of a verified TOTP device (the named one, else the default). The
 * factor's lock is checked first; a wrong or replayed code counts towards it. The accepted time step is
 * taken with a conditional UPDATE, so of two concurrent requests with one code exactly one passes.
 */
export async function authenticateTotp(
  deps: Deps,
  caller: MfaCaller,
  input: { deviceId?: string; code: string; createMfaToken?: { singleUse?: boolean } },
): ReturnType<typeof passSecondFactor> {
  const { environmentId } = caller.env;
  const { userId } = caller.principal;
  requireMethod(await mfaPolicy(deps, caller), "totp");
  const lock = factorLock(deps.store, environmentId, userId, "totp");
  await lock.check();
  const device = await mfa.findVerifiedTotpDevice(deps.db, environmentId, userId, input.deviceId);
  if (!device) throw notFound("verified TOTP device");
  const step = totpStepOf(deps.sealer.open(device.secretSealed, totpSecretAad(device.id)), input.code);
  if (step === null || !(await mfa.acceptTotpCounter(deps.db, environmentId, userId, device.id, step))) {
    await lock.failed();
    throw step === null ? invalidCode() : usedCode();
  }
  await lock.passed();
  return passSecondFactor(deps, caller.env, caller.principal, { type: "totp", deviceId: device.id }, caller.meta, { createMfaToken: input.createMfaToken });
}
