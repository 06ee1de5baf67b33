import { randomUUID } from "node:crypto";
import type { Queryable } from "../../db/db.js";
import * as keys from "../../db/repositories/environment-keys.js";
import * as sessions from "../../db/repositories/sessions.js";
import { findSignedInUser, type NewSessionRow, type SignedInUserRecord } from "../../db/repositories/user-aggregate.js";
import { DomainError } from "../../errors.js";
import { audited } from "../audit/audit.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import { ensureSigningKey } from "../environments/keys.js";
import type { EnvironmentAccess, PublicEnvironment } from "../tenancy/access.js";
import { isSessionRevoked, markSessionsRevoked } from "./revocation.js";
import { credentialClaims, profileClaims } from "./claims.js";
import { BASE_SCOPE, MFA_PENDING_SCOPE, awaitsSecondFactor, signSessionTokens } from "./tokens.js";
import type { TokenPolicy } from "./keyring.js";

/** A session's tokens as sign-in, refresh and every change of the signed-in user answer them. */
export interface SessionTokens {
  sessionId: string;
  jwt: string;
  minifiedJwt: string;
  /** Unix seconds. */
  expiresAt: number;
  /** Space-delimited, always containing user:basic. */
  scope: string;
}

/** Where a sign-in came from (kept on the session). */
export interface ClientMeta {
  ipAddress: string | null;
  userAgent: string | null;
  requestId: string;
}

const invalidSession = (message: string) => new DomainError("unauthenticated", "invalid_session", message);

/** What an end user's own change is audited as: the user is the actor, no API token is involved. */
export function endUserAccess(env: PublicEnvironment, userId: string, requestId: string): EnvironmentAccess {
  return { ...env, role: null, actor: { tokenId: "", userId, memberId: null, accountId: null, requestId } };
}

export async function sign(
  deps: Pick<Deps, "sessionKeys">,
  user: SignedInUserRecord,
  session: { sessionId: string; issuedAt?: number; expiresAt: number; scope: string; refreshId: string | undefined },
  collected: Set<string>,
): Promise<SessionTokens> {
  const environmentId = user.user.environmentId;
  const { refreshId, ...shown } = session;
  const { jwt, minifiedJwt } = await signSessionTokens(
    deps.sessionKeys,
    { environmentId, userId: user.user.id, ...shown, ...(refreshId ? { refreshId } : {}) },
    { scope: session.scope, verifiedCredentials: credentialClaims(user), profile: profileClaims(user.user, collected) },
  );
  return { ...shown, jwt, minifiedJwt };
}

/** A session a sign-in is about to open: its row, and the profile fields its tokens carry once it is stored. */
export interface SessionToOpen {
  row: NewSessionRow;
  /** Unix seconds the tokens' lifetime counts from: their `iat`. */
  issuedAt: number;
  collected: Set<string>;
}

/**
 * The session a user who just proved a credential gets under the environment's token policy (the sign-in
 * stores it with its visit and audit rows: openSessionAndFindUser), signed by signOpenedSession once it is
 * stored. Waiting for a second factor, its token grants only that, and the sign-in's scope waits on the row.
 */
export function sessionToOpen(
  deps: Pick<Deps, "config">,
  policy: TokenPolicy,
  meta: ClientMeta,
  scope: string,
  opts: { secondFactorPending: boolean; firstFactor: { kind: string; id: string | null } },
): SessionToOpen {
  // A token never outlives the session's absolute end (refresh.ts), even with a longer JWT lifetime.
  const issuedAt = Math.floor(Date.now() / 1000);
  const expiresAt = issuedAt + Math.min(policy.lifetimeSeconds, deps.config.sessionMaxAgeSeconds);
  return {
    issuedAt,
    row: {
      id: randomUUID(),
      ipAddress: meta.ipAddress,
      userAgent: meta.userAgent ? meta.userAgent.slice(0, 512) : null,
      expiresAt: new Date(expiresAt * 1000),
      scope: opts.secondFactorPending ? MFA_PENDING_SCOPE : scope,
      pendingScope: opts.secondFactorPending ? scope : null,
      refreshId: randomUUID(),
      firstFactor: opts.firstFactor,
    },
    collected: policy.collected,
  };
}

/** The first tokens of a session sessionToOpen made, once it is stored. */
export function signOpenedSession(deps: Pick<Deps, "sessionKeys">, user: SignedInUserRecord, s: SessionToOpen): Promise<SessionTokens> {
  const { row } = s;
  return sign(deps, user, { sessionId: row.id, issuedAt: s.issuedAt, expiresAt: Math.floor(row.expiresAt.getTime() / 1000), scope: row.scope, refreshId: row.refreshId }, s.collected);
}

/**
 * New tokens for the caller's live session, with the user as they are now (after a link, a profile change, a
 * second factor): the same expiry and refresh generation as the token the call came with, so that such a
 * call can neither lengthen a token's life nor revive a generation a refresh has spent (only a refresh
 * moves either: refresh.ts). A revoked session, or a deleted user, cannot.
 */
export async function renewSession(
  deps: Pick<Deps, "db" | "sessionKeys">,
  principal: EndUserPrincipal,
  opts: { secondFactorPassed?: boolean; q?: Queryable } = {},
): Promise<{ tokens: SessionTokens; user: SignedInUserRecord }> {
  const { environmentId, userId, sessionId } = principal;
  const q = opts.q ?? deps.db;
  // No second look at the store's revocation marker: authentication has just checked it, and the row's
  // revoked_at (set before every marker is written) refuses a revoked session below, even without it.
  const policy = await deps.sessionKeys.policy(environmentId);
  // A second factor just passed: a session waiting for it takes its full scope; a full one (a step-up
  // check) is only renewed.
  const live =
    (opts.secondFactorPassed && awaitsSecondFactor(principal.scope)
      ? await sessions.completeSecondFactor(q, environmentId, userId, sessionId)
      : await sessions.findLiveSession(q, environmentId, userId, sessionId));
  if (!live) throw invalidSession("the session has been revoked or has expired");
  const user = await findSignedInUser(q, environmentId, userId);
  if (!user) throw invalidSession("the session's user no longer exists");
  const session = { sessionId, expiresAt: principal.expiresAt, scope: live.scope ?? BASE_SCOPE, refreshId: principal.refreshId };
  return { tokens: await sign(deps, user, session, policy.collected), user };
}

/**
 * Ends the caller's session: revoked in Postgres and, at once, for every api process. `revokedBy` says why in
 * the audit row: the user signing out, or a spent refresh token presented again (refresh.ts).
 */
export async function revokeOwnSession(
  deps: Deps,
  env: PublicEnvironment,
  principal: EndUserPrincipal,
  requestId: string,
  revokedBy: "user" | "refresh_reuse" = "user",
): Promise<void> {
  const revoked = await audited(deps, endUserAccess(env, principal.userId, requestId), async (t, record) => {
    const s = await sessions.revokeUserSession(t, env.environmentId, principal.userId, principal.sessionId);
    if (s) await record({ action: "user.session.revoked", resourceType: "session", resourceId: s.id, after: { userId: principal.userId, revokedBy } });
    return s;
  });
  // Already revoked (or revoked meanwhile): mark it anyway, the marker may have been lost with the store.
  await markSessionsRevoked(deps.store, [revoked ?? { id: principal.sessionId, expiresAt: new Date(principal.expiresAt * 1000) }]);
}

/**
 * The caller of an end-user operation: a session token of this environment (signature by one of its
 * published keys, issuer, environment, expiry) whose session is not revoked. Usually no Postgres read: the
 * keys are cached per process and the session's state is in the store; when the store does not know it
 * (never asked, or forgotten with a restart or a flush), Postgres does (revocation.ts).
 * `liveness: "handler"`: the operation's own statement refuses a session that is not live (the RPC declares
 * session_checked_by_handler), so the store is not asked first.
 */
export async function authenticateEndUser(
  deps: Pick<Deps, "sessionVerifier" | "store" | "db">,
  environmentId: string,
  authorization: string | null,
  opts: { liveness: "store" | "handler" } = { liveness: "store" },
): Promise<EndUserPrincipal> {
  const m = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  if (!m) throw new DomainError("unauthenticated", "unauthorized", "missing or malformed Authorization header: expected 'Bearer <session JWT>'");
  const claims = await deps.sessionVerifier.verify(environmentId, m[1]);
  if (opts.liveness === "store" && (await isSessionRevoked(deps, claims))) throw invalidSession("the session has been revoked");
  return { kind: "end_user", ...claims };
}

/** The environment's published verification keys (current and retired-but-live), as a JWKS. */
export async function publishedJwks(deps: Pick<Deps, "db" | "sealer">, environmentId: string): Promise<Record<string, string>[]> {
  await ensureSigningKey(deps, deps.db, environmentId);
  return (await keys.findPublishedKeys(deps.db, environmentId)).map((k) => k.publicJwk);
}
