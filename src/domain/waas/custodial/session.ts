import { randomBytes, randomUUID } from "node:crypto";
import { SignJWT, jwtVerify, type JWTPayload } from "jose";
import { base64urlnopad } from "@scure/base";
import { hashApiToken, looksLikeApiToken } from "../../../crypto/api-token.js";
import * as repo from "../../../db/repositories/waas.js";
import type { Queryable } from "../../../db/db.js";
import { DomainError } from "../../../errors.js";
import { audited, type RecordChange } from "../../audit/audit.js";
import type { Deps } from "../../deps.js";
import type { EnvironmentAccess } from "../../tenancy/access.js";

/**
 * WaaS session tokens: an API token is exchanged for a short-lived JWT that WaaS operations accept. The
 * token is HS256 under a per-environment secret (32 random bytes, created on first use, sealed at rest).
 * Only the service verifies these tokens (verifyWaasSessionToken), so the secret is never published.
 */

export const WAAS_SESSION_TTL_SECONDS = 15 * 60;
export const WAAS_SESSION_ISSUER = "sigil";
export const WAAS_SESSION_AUDIENCE = "sigil:waas";

export interface WaasSessionClaims extends JWTPayload {
  /** The API token the session was exchanged for. */
  sub: string;
  environment_id: string;
  scope: "waas";
}

export const secretAad = (keyId: string) => `waas_session_key:${keyId}:secret`;

/** The environment's secret, created (and audited) inside the caller's transaction when it has none yet. */
async function sessionSecret(deps: Pick<Deps, "sealer">, t: Queryable, environmentId: string, record?: RecordChange) {
  let key = await repo.findWaasSessionKey(t, environmentId);
  if (!key && record) {
    const id = randomUUID();
    if (await repo.insertWaasSessionKey(t, environmentId, id, deps.sealer.seal(base64urlnopad.encode(randomBytes(32)), secretAad(id))))
      await record({ action: "waas_session_key.created", resourceType: "waas_session_key", resourceId: id });
    key = await repo.findWaasSessionKey(t, environmentId);
  }
  if (!key) return null;
  return { id: key.id, secret: base64urlnopad.decode(deps.sealer.open(key.secretSealed, secretAad(key.id))) };
}

/** Issues a session token for the calling API token, valid for 15 minutes in this environment only. */
export async function authenticateWaas(deps: Pick<Deps, "db" | "sealer">, access: EnvironmentAccess) {
  return audited(deps, access, async (t, record) => {
    const key = (await sessionSecret(deps, t, access.environmentId, record))!;
    const jti = randomUUID();
    const now = Math.floor(Date.now() / 1000);
    const exp = now + WAAS_SESSION_TTL_SECONDS;
    const token = await new SignJWT({ environment_id: access.environmentId, scope: "waas" })
      .setProtectedHeader({ alg: "HS256", typ: "JWT", kid: key.id })
      .setIssuer(WAAS_SESSION_ISSUER)
      .setAudience(WAAS_SESSION_AUDIENCE)
      .setSubject(access.actor.tokenId)
      .setJti(jti)
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .sign(key.secret);
    const expiresAt = new Date(exp * 1000);
    await record({
      action: "waas_session.created",
      resourceType: "waas_session",
      resourceId: jti,
      after: { tokenId: access.actor.tokenId, expiresAt: expiresAt.toISOString() },
    });
    return { token, expiresAt };
  });
}

/**
 * Verifies a WaaS session token for an environment: signature, issuer, audience, expiry, scope and
 * environment. Throws 401 `invalid_waas_session` otherwise. For the WaaS operations that accept sessions.
 */
export async function verifyWaasSessionToken(deps: Pick<Deps, "db" | "sealer">, environmentId: string, token: string): Promise<WaasSessionClaims> {
  const invalid = () => new DomainError("unauthenticated", "invalid_waas_session", "invalid or expired WaaS session token");
  const key = await sessionSecret(deps, deps.db, environmentId);
  if (!key) throw invalid();
  try {
    const { payload } = await jwtVerify(token, key.secret, {
      algorithms: ["HS256"],
      issuer: WAAS_SESSION_ISSUER,
      audience: WAAS_SESSION_AUDIENCE,
    });
    if (payload.environment_id !== environmentId || payload.scope !== "waas" || typeof payload.sub !== "string") throw invalid();
    return payload as WaasSessionClaims;
  } catch {
    throw invalid();
  }
}

/**
 * Whether a raw API token is a valid, active token of this environment. Only this environment's tokens are
 * looked at, so the answer says nothing about other environments (a token of another one is just "false").
 * Member (account) tokens are bound to no environment and answer false.
 */
export async function verifyApiKey(deps: Pick<Deps, "db">, access: EnvironmentAccess, apiKey: string): Promise<boolean> {
  // No key given: the token of the call itself (an API token of this environment, still active).
  if (apiKey === "") return access.actor.accountId === null && repo.isActiveEnvironmentTokenId(deps.db, access.environmentId, access.actor.tokenId);
  if (!looksLikeApiToken(apiKey)) return false;
  return repo.isActiveEnvironmentToken(deps.db, access.environmentId, hashApiToken(apiKey));
}
