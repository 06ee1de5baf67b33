import type { Queryable } from "../../db/db.js";
import { DomainError, unprocessable } from "../../errors.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import type { ClientMeta } from "../sessions/service.js";
import { awaitsSecondFactor, mfaRequired } from "../sessions/tokens.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { enrolmentWhilePending, loadUserFactors, sessionFirstFactor } from "./factors.js";
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
 * A session still waiting for its second factor may enrol the user's first device only: while the user has
 * any factor this session can pass (a verified device of an offered kind, or a verified address other than
 * the one it signed in with when e-mail is offered), it passes that factor first (403 mfa_required). A
 * session signed in with the address that is the user's factor for their other sign-ins has nothing to pass
 * and may not mint a factor from the address alone (403 no_usable_second_factor). Every device kind (TOTP,
 * passkey) enrols under this rule.
 */
export async function checkEnrolment(q: Queryable, policy: MfaPolicy, principal: EndUserPrincipal): Promise<void> {
  if (!awaitsSecondFactor(principal.scope)) return;
  const { environmentId, userId, sessionId } = principal;
  const [user, first] = await Promise.all([loadUserFactors(q, environmentId, userId), sessionFirstFactor(q, environmentId, userId, sessionId)]);
  const verdict = enrolmentWhilePending(policy, user, first);
  if (verdict === "pass_existing") throw mfaRequired("pass your existing second factor first: a first factor alone cannot enrol another device");
  if (verdict === "no_usable_factor")
    throw new DomainError(
      "forbidden",
      "no_usable_second_factor",
      "the address this session signed in with is your second factor for your other ways to sign in: sign in another way and pass it, then enrol a device",
    );
}
