import { DomainError, unprocessable } from "../../errors.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import type { ClientMeta } from "../sessions/service.js";
import { awaitsSecondFactor } from "../sessions/tokens.js";
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

/** Whether the caller's session still waits for its second factor (its token's scope is requiresAdditionalAuth). */
export const awaitingSecondFactor = (caller: MfaCaller) => awaitsSecondFactor(caller.principal.scope);

export const mfaRequired = () =>
  new DomainError("forbidden", "mfa_required", "this session must pass its second factor first: a first factor alone cannot enrol another device");
