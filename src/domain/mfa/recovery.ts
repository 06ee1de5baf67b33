import * as mfa from "../../db/repositories/mfa.js";
import * as users from "../../db/repositories/users.js";
import { conflict, notFound, unprocessable } from "../../errors.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import { endUserAccess } from "../sessions/service.js";
import { mfaPolicy, type MfaCaller } from "./caller.js";
import { factorLock } from "./lockout.js";
import { passSecondFactor } from "./pass.js";
import type { MfaPolicy } from "./policy.js";
import { newRecoveryCodes, recoveryCodeHash } from "./recovery-codes.js";

/**
 * Recovery codes: made with the user's first verified device (on the first read) or anew on request,
 * shown once (only their hashes are kept), each spent by one sign-in.
 */

function requireBackupCodes(policy: MfaPolicy): void {
  if (!policy.enabled || !policy.backupCodes) throw unprocessable("recovery_codes_not_enabled", "this environment does not offer recovery codes");
}

/** Makes a new set (replacing any earlier one) inside the caller's transaction, which holds the user's lock. */
async function issue(deps: Pick<Deps, "db">, caller: MfaCaller, replace: boolean): Promise<string[]> {
  const { environmentId } = caller.env;
  const { userId } = caller.principal;
  return audited(deps, endUserAccess(caller.env, userId, caller.meta.requestId), async (t, record) => {
    if (!(await users.lockUser(t, environmentId, userId))) throw notFound("user");
    if (!(await mfa.hasVerifiedDevice(t, environmentId, userId)))
      throw unprocessable("mfa_device_required", "recovery codes stand in for an MFA device: verify a device first");
    if (!replace && (await mfa.hasRecoveryCodes(t, environmentId, userId)))
      throw conflict("recovery_codes_already_shown", "recovery codes are shown once, when they are made: make new ones (POST) to see codes again");
    const codes = newRecoveryCodes();
    await mfa.replaceRecoveryCodes(t, environmentId, userId, codes.map((c) => recoveryCodeHash(userId, c)));
    await record({ action: "user.mfa.recovery_codes_created", resourceType: "user", resourceId: userId, after: { userId, count: codes.length, replaced: replace } });
    return codes;
  });
}

/** The first read after a device was verified makes the codes and answers them; every read after it answers 409. */
export async function showRecoveryCodes(deps: Deps, caller: MfaCaller): Promise<string[]> {
  requireBackupCodes(await mfaPolicy(deps, caller));
  return issue(deps, caller, false);
}

/** Ten new codes; every earlier code (used or not) stops working. */
export async function renewRecoveryCodes(deps: Deps, caller: MfaCaller): Promise<string[]> {
  requireBackupCodes(await mfaPolicy(deps, caller));
  return issue(deps, caller, true);
}

/** Passes the second factor with a recovery code, which is spent (one conditional UPDATE: used once, ever). */
export async function authenticateRecovery(deps: Deps, caller: MfaCaller, input: { code: string; createMfaToken?: { singleUse?: boolean } }): ReturnType<typeof passSecondFactor> {
  const { environmentId } = caller.env;
  const { userId } = caller.principal;
  requireBackupCodes(await mfaPolicy(deps, caller));
  const lock = factorLock(deps.store, environmentId, userId, "recovery");
  await lock.check();
  if (!(await mfa.useRecoveryCode(deps.db, environmentId, userId, recoveryCodeHash(userId, input.code)))) {
    await lock.failed();
    throw unprocessable("invalid_recovery_code", "this is not an unused recovery code of this user");
  }
  await lock.passed();
  return passSecondFactor(deps, caller.env, caller.principal, { type: "recovery", deviceId: null }, caller.meta, { createMfaToken: input.createMfaToken });
}
