import { notFound } from "../../errors.js";
import * as mfaDevices from "../../db/repositories/user-mfa-devices.js";
import * as users from "../../db/repositories/users.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";

/**
 * Removes every MFA device of the user (a lost phone or security key), and the recovery codes that stood in
 * for them: the user enrolls again at the next sign-in that asks for a second factor. Audited even when there was nothing to remove, because an operator
 * acted on the user's account.
 */
export async function resetUserMfa(deps: Deps, access: EnvironmentAccess, userId: string): Promise<number> {
  const env = access.environmentId;
  return audited(deps, access, async (t, record) => {
    if (!(await users.lockUser(t, env, userId))) throw notFound("user");
    const removed = await mfaDevices.deleteUserMfaDevices(t, env, userId);
    const unusedRecoveryCodes = await mfaDevices.deleteUserRecoveryCodes(t, env, userId);
    await record({ action: "user.mfa.reset", resourceType: "user", resourceId: userId, after: { removedMfaDevices: removed.length, unusedRecoveryCodes } });
    return removed.length;
  });
}
