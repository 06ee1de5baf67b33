import type { Queryable } from "../../db/db.js";
import * as mfa from "../../db/repositories/mfa.js";
import { unprocessable } from "../../errors.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import type { ClientMeta } from "../sessions/service.js";
import { awaitsSecondFactor, mfaRequired } from "../sessions/tokens.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import type { MfaDeviceType, MfaPolicy } from "./policy.js";

/** Who calls an MFA operation: the session's user in the environment the path names. */
export interface MfaCaller {
  env: PublicEnvironment;
  principal: EndUserPrincipal;
  meta: ClientMeta;
}

/** The environment's MFA settings, read with its session keys (cached per process). */
export async function mfaPolicy(deps: Pick<Deps, "sessionKeys">, caller: MfaCaller): Promise<MfaPolicy> {
  return (await deps.sessionKeys.policy(caller.env.environmentId)).mfa;
}

/** 422 mfa_method_not_enabled unless the environment offers this kind of second factor. */
export function requireMethod(policy: MfaPolicy, type: MfaDeviceType): void {
  if (!policy.enabled || !policy.methods.includes(type))
    throw unprocessable("mfa_method_not_enabled", `this environment does not offer ${type} as a second factor`);
}

/**
 * A session still waiting for its second factor may enrol the user's first device (MFA required of a user
 * who has none), never another: 403 mfa_required then. Every device kind (TOTP, passkey) enrols under it.
 */
export async function checkEnrolment(q: Queryable, environmentId: string, principal: EndUserPrincipal): Promise<void> {
  if (awaitsSecondFactor(principal.scope) && (await mfa.hasVerifiedDevice(q, environmentId, principal.userId)))
    throw mfaRequired("pass your existing second factor first: a first factor alone cannot enrol another device");
}
