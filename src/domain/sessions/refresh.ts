import { randomUUID } from "node:crypto";
import * as sessions from "../../db/repositories/sessions.js";
import { rotateRefreshAndFindUser, type SignedInUserRecord } from "../../db/repositories/user-aggregate.js";
import { DomainError } from "../../errors.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { markSessionsRevoked } from "./revocation.js";
import { revokeOwnSession, sign, type SessionTokens } from "./service.js";
import { BASE_SCOPE } from "./tokens.js";

/**
 * A token presented again after its refresh generation was spent, sooner than this after the refresh
 * that spent it, is taken for the same client refreshing twice at once (two tabs, a retry): refused, the
 * session kept. Past it, it is taken for a copy in other hands (OAuth 2.1's refresh token reuse): refused and
 * the whole session revoked, the newest tokens included, since which side is the thief cannot be told.
 */
const REFRESH_REUSE_GRACE_SECONDS = 10;

const invalidSession = (message: string) => new DomainError("unauthenticated", "invalid_session", message);

/**
 * Refresh: new tokens for the caller's session in a new refresh generation, a full lifetime from now but
 * never past the session's absolute end (SIGIL_SESSION_MAX_AGE_SECONDS from its sign-in). The token it was
 * called with is spent for refreshing (it still authenticates until its own expiry): of two refreshes with
 * one token exactly one wins, and a spent token presented again is refused (401 refresh_token_reused).
 */
export async function refreshSession(
  deps: Deps,
  env: PublicEnvironment,
  principal: EndUserPrincipal,
  requestId: string,
): Promise<{ tokens: SessionTokens; user: SignedInUserRecord }> {
  const { environmentId, userId, sessionId } = principal;
  const policy = await deps.sessionKeys.policy(environmentId);
  const maxAgeSeconds = deps.config.sessionMaxAgeSeconds;
  const next = randomUUID();
  // One statement rotates the generation and reads the user, outside a transaction: after it only signing
  // is left, with the key the keyring loaded with the policy above (they are kept together), so a refresh
  // that spends its generation and answers no tokens takes a crash, as it would with a transaction.
  const rotated = await rotateRefreshAndFindUser(deps.db, environmentId, userId, sessionId, {
    presented: principal.refreshId ?? null,
    next,
    lifetimeSeconds: policy.lifetimeSeconds,
    maxAgeSeconds,
  });
  const renewed = rotated && {
    tokens: await sign(
      deps,
      rotated.user,
      { sessionId, expiresAt: Math.floor(rotated.session.expiresAt!.getTime() / 1000), scope: rotated.session.scope ?? BASE_SCOPE, refreshId: next },
      policy.collected,
    ),
    user: rotated.user,
  };
  if (!renewed) throw await refusal(deps, env, principal, requestId);
  return renewed;
}

async function refusal(deps: Deps, env: PublicEnvironment, principal: EndUserPrincipal, requestId: string): Promise<DomainError> {
  const why = await sessions.refreshRefusal(deps.db, principal.environmentId, principal.userId, principal.sessionId, deps.config.sessionMaxAgeSeconds);
  if (why.kind === "not_live") {
    // Authentication did not ask the store (the rotation checks liveness): what Postgres said is written
    // there now, so the token's other calls are refused without a read.
    await markSessionsRevoked(deps.store, [{ id: principal.sessionId, expiresAt: new Date(principal.expiresAt * 1000) }]);
    return invalidSession("the session has been revoked or has expired");
  }
  if (why.kind === "too_old")
    return new DomainError("unauthenticated", "session_expired", "the session has reached its maximum age and cannot be refreshed: sign in again");
  if (why.secondsSinceRefresh >= REFRESH_REUSE_GRACE_SECONDS) await revokeOwnSession(deps, env, principal, requestId, "refresh_reuse");
  return new DomainError(
    "unauthenticated",
    "refresh_token_reused",
    "this token was already used to refresh its session: use the newest token (a token refreshes once; a reuse later than a concurrent refresh revokes the session)",
  );
}
