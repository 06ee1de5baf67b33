import * as mfa from "../../db/repositories/mfa.js";
import { DomainError, unprocessable } from "../../errors.js";
import type { Deps } from "../deps.js";
import { verifyTestAccountCode } from "../test-accounts/service.js";
import { codeBookOf } from "../verifications/codes.js";
import { mfaPolicy, requireMethod, type MfaCaller } from "./caller.js";
import { repeatsFirstFactor, sessionFirstFactor } from "./factors.js";
import { factorLock } from "./lockout.js";
import { passSecondFactor } from "./pass.js";

/**
 * The e-mail second factor: the client has a code sent with the e-mail verification operation (the same
 * code machinery as e-mail sign-in) to one of the user's verified addresses, and redeems it here. A code
 * sent to any other address passes nothing; a wrong one counts towards the factor's lock as well as the
 * verification's own five attempts. Nor does the address that signed this session in: a factor that repeats
 * the first factor's credential is not a second factor (422 email_factor_is_first_factor; for a session
 * opened before sessions kept their first factor, any address, since which one it was is unknown).
 */
export async function authenticateEmail(
  deps: Deps,
  caller: MfaCaller,
  input: { verificationId: string; code: string; createMfaToken?: { singleUse?: boolean } },
): ReturnType<typeof passSecondFactor> {
  const { environmentId } = caller.env;
  const { userId, sessionId } = caller.principal;
  const policy = await mfaPolicy(deps, caller);
  requireMethod(policy, "email");
  const lock = factorLock(deps.store, environmentId, userId, "email");
  await lock.check();
  const book = codeBookOf(deps);
  let email: string;
  try {
    email = await book.redeem<string>(environmentId, "email", input.verificationId, input.code, (v) => verifyTestAccountCode(deps, environmentId, v.identifier, input.code));
  } catch (err) {
    if (err instanceof DomainError && err.code === "invalid_verification_code") await lock.failed();
    throw err;
  }
  if (!(await mfa.hasVerifiedEmail(deps.db, environmentId, userId, email))) {
    await lock.failed();
    throw unprocessable("email_not_verified_for_user", "the code was sent to an address that is not one of this user's verified e-mail addresses");
  }
  const first = await sessionFirstFactor(deps.db, environmentId, userId, sessionId);
  if (repeatsFirstFactor(email, first))
    throw unprocessable(
      "email_factor_is_first_factor",
      first
        ? "this session signed in with this address: a code sent to it proves nothing new; pass another factor (another verified address, a device)"
        : "this session does not say which credential signed it in: sign in again to pass the e-mail factor",
    );
  await lock.passed();
  return passSecondFactor(deps, caller.env, caller.principal, { type: "email", deviceId: null }, caller.meta, { createMfaToken: input.createMfaToken });
}
