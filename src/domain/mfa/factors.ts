import type { Queryable } from "../../db/db.js";
import * as mfa from "../../db/repositories/mfa.js";
import type { UserFactorRecord } from "../../db/repositories/mfa.js";
import type { MfaPolicy } from "./policy.js";

/**
 * Which second factors a user has, as seen from one sign-in. A factor is something the environment offers
 * (policy.methods) that the user holds: a verified device of an offered kind, or a verified e-mail address
 * when e-mail is offered (it has no device row: the code goes to the address). A factor never repeats the
 * sign-in's own credential: the address that signed a session in is not a second factor of that session.
 */

/** The credential a sign-in was made with (its first factor): the kind, and the address for an e-mail. */
export interface FirstFactor {
  kind: string;
  email: string | null;
}

export type UserFactors = UserFactorRecord;

export const loadUserFactors = (q: Queryable, environmentId: string, userId: string): Promise<UserFactors> => mfa.findUserFactors(q, environmentId, userId);

const sameAddress = (a: string, b: string | null) => b !== null && a.toLowerCase() === b.toLowerCase();

/**
 * Whether a code to `email` would repeat the session's first factor: it signed in with that address, or its
 * first factor is unknown (a session opened before they were kept, which may have been any address).
 */
export const repeatsFirstFactor = (email: string, first: FirstFactor | null): boolean => first === null || (first.kind === "email" && sameAddress(email, first.email));

/** The factors a session signed in with `first` can pass: devices of offered kinds, other verified addresses. */
export function usableFactors(policy: MfaPolicy, user: UserFactors, first: FirstFactor | null): { devices: boolean; emails: string[] } {
  if (!policy.enabled) return { devices: false, emails: [] };
  const offered = policy.methods as string[];
  const devices = user.deviceTypes.some((t) => offered.includes(t));
  const emails = offered.includes("email") ? user.emails.filter((e) => !repeatsFirstFactor(e, first)) : [];
  return { devices, emails };
}

export function hasUsableFactor(policy: MfaPolicy, user: UserFactors, first: FirstFactor | null): boolean {
  const u = usableFactors(policy, user, first);
  return u.devices || u.emails.length > 0;
}

/**
 * Whether a sign-in of this user with `first` owes a second factor before its session gets its scope: MFA
 * is on, and either required of everyone or the user has a factor this sign-in can pass (a user who has
 * one counts as enrolled; an address is never counted for its own sign-in, so optional MFA never asks for
 * what cannot be given).
 */
export function secondFactorDue(policy: MfaPolicy, user: UserFactors, first: FirstFactor): boolean {
  return policy.enabled && (policy.required || hasUsableFactor(policy, user, first));
}

/** secondFactorDue for a stored user, whose factors are read only when they decide (MFA on, not required). */
export async function owesSecondFactor(q: Queryable, policy: MfaPolicy, environmentId: string, userId: string, first: FirstFactor): Promise<boolean> {
  if (!policy.enabled || policy.required) return policy.enabled;
  return secondFactorDue(policy, await loadUserFactors(q, environmentId, userId), first);
}

/**
 * What a session still owing its factor may do about enrolment:
 * - `pass_existing`: the user has a factor this session can pass: pass it first (no new device);
 * - `no_usable_factor`: signed in with an address that is the user's second factor for their other ways to
 *   sign in (a wallet, a phone...): the address cannot be its own second factor, and enrolling a device with
 *   it alone would let whoever reads the mailbox mint a factor; sign in another way and pass the address;
 * - `first_device`: the user has no factor at all (or their address is their only credential, with nothing
 *   else for it to protect): the session enrols its first device, and passes with it.
 */
export function enrolmentWhilePending(policy: MfaPolicy, user: UserFactors, first: FirstFactor | null): "pass_existing" | "no_usable_factor" | "first_device" {
  if (hasUsableFactor(policy, user, first)) return "pass_existing";
  const emailOffered = (policy.methods as string[]).includes("email");
  // Unknown first factor (a session from before they were kept): whichever address it was, refuse.
  if (!first) return emailOffered && user.emails.length > 0 ? "no_usable_factor" : "first_device";
  const signedInWithFactor = first.kind === "email" && emailOffered && user.emails.some((e) => sameAddress(e, first.email));
  return signedInWithFactor && user.otherSignInWays > 0 ? "no_usable_factor" : "first_device";
}

/** The session's first factor as kept on its row (null for a session from before they were kept). */
export const sessionFirstFactor = (q: Queryable, environmentId: string, userId: string, sessionId: string): Promise<FirstFactor | null> =>
  mfa.findSessionFirstFactor(q, environmentId, userId, sessionId);
