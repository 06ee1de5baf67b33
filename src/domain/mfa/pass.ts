import type { SignedInUserRecord } from "../../db/repositories/user-aggregate.js";
import { audited } from "../audit/audit.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import { endUserAccess, renewSession, type ClientMeta, type SessionTokens } from "../sessions/service.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import type { SecondFactor } from "./lockout.js";
import { issueMfaToken } from "./mfa-token.js";

/**
 * A second factor just passed (the caller verified it and cleared its lock): a session waiting for it
 * takes its full scope, a full session (a step-up) is renewed; either way new tokens, an audit row and the
 * user.mfa.passed event, together. `createMfaToken` also answers an mfaToken: a short-lived proof of this
 * pass for operations that ask for a fresh factor (only its hash is stored).
 */
export async function passSecondFactor(
  deps: Deps,
  env: PublicEnvironment,
  principal: EndUserPrincipal,
  factor: { type: SecondFactor; deviceId: string | null },
  meta: ClientMeta,
  opts: { createMfaToken?: { singleUse?: boolean } } = {},
): Promise<{ tokens: SessionTokens; user: SignedInUserRecord; mfaToken?: string }> {
  const { tokens, user } = await audited(deps, endUserAccess(env, principal.userId, meta.requestId), async (t, record) => {
    const renewed = await renewSession(deps, principal, { secondFactorPassed: true, q: t });
    await record({
      action: "user.mfa.passed",
      resourceType: "user",
      resourceId: principal.userId,
      after: { userId: principal.userId, sessionId: principal.sessionId, factor: factor.type, deviceId: factor.deviceId },
    });
    return renewed;
  });
  if (!opts.createMfaToken) return { tokens, user };
  const mfaToken = await issueMfaToken(deps.store, {
    environmentId: env.environmentId,
    userId: principal.userId,
    sessionId: principal.sessionId,
    factor: factor.type,
    singleUse: opts.createMfaToken.singleUse ?? true,
  });
  return { tokens, user, mfaToken };
}
