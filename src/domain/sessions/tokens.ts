import { decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from "jose";
import { signCompactJws } from "../../crypto/jws.js";
import { DomainError } from "../../errors.js";
import type { Keyring } from "./keyring.js";

/** Every full session token carries at least this scope. */
export const BASE_SCOPE = "user:basic";

/**
 * The whole scope of a session that still has to pass its second factor: only the MFA operations
 * (`mfa_pending_allowed` in the proto) accept it; passing MFA gives the session its full scope.
 */
export const MFA_PENDING_SCOPE = "requiresAdditionalAuth";

export const awaitsSecondFactor = (scope: string) => scope.split(" ").includes(MFA_PENDING_SCOPE);

/** 403 mfa_required: a session still waiting for its second factor asked for more than that allows. */
export const mfaRequired = (why: string) => new DomainError("forbidden", "mfa_required", why);

/** What a valid session token says. */
export interface SessionClaims {
  environmentId: string;
  userId: string;
  sessionId: string;
  /** Space-delimited. */
  scope: string;
  /** Unix seconds. */
  issuedAt: number;
  expiresAt: number;
  /**
   * The refresh generation the token belongs to (claim refresh_id): a refresh spends it
   * (src/domain/sessions/refresh.ts). Absent in tokens signed before refreshes rotated.
   */
  refreshId?: string;
}

/** The claims of a token to sign, beyond the session's identity: credentials and profile fields. */
export interface TokenContent {
  scope: string;
  verifiedCredentials: Record<string, unknown>[];
  profile: Record<string, unknown>;
}

/** The issuer of an environment's session tokens (stable: relying parties pin it). */
export const issuerOf = (environmentId: string) => `sigil/${environmentId}`;

const unauthenticated = (message: string) => new DomainError("unauthenticated", "invalid_session", message);

/**
 * Signs a session's full token (with the user's verified credentials and profile) and its minified twin
 * (identity and scope only, for headers where size matters). Both expire at `expiresAt` (unix seconds) and
 * were issued at `issuedAt`, the second the lifetime was counted from (a sign-in's session is stored between
 * the two, and a second may pass: `exp - iat` is then still the environment's lifetime); now when absent.
 */
export async function signSessionTokens(
  keyring: Keyring,
  session: Omit<SessionClaims, "issuedAt"> & { issuedAt?: number },
  content: TokenContent,
): Promise<{ jwt: string; minifiedJwt: string }> {
  const key = await keyring.signingKey(session.environmentId);
  const base = { sid: session.sessionId, environment_id: session.environmentId, scope: content.scope, ...(session.refreshId ? { refresh_id: session.refreshId } : {}) };
  const header = { alg: key.alg, kid: key.kid, typ: "JWT" } as const;
  const registered = { iss: issuerOf(session.environmentId), sub: session.userId, iat: session.issuedAt ?? Math.floor(Date.now() / 1000), exp: session.expiresAt };
  const sign = (claims: Record<string, unknown>) => signCompactJws(header, { ...claims, ...registered }, key.key);
  const [jwt, minifiedJwt] = await Promise.all([sign({ ...content.profile, ...base, verified_credentials: content.verifiedCredentials }), sign(base)]);
  return { jwt, minifiedJwt };
}

/** Most tokens a process remembers as verified (each entry is the token text and its claims). */
const MEMO_SIZE = 20_000;

/**
 * Verifies session tokens of an environment: signature by one of its published keys (the header's kid; the
 * algorithm must be the key's, so `alg: none` or an HMAC made with the public key cannot pass), issuer,
 * environment and expiry. A token is immutable, so a verified one is remembered (by its exact text, until
 * it expires) and the next check of it costs a map lookup instead of an ECDSA verification; revocation is
 * checked separately on every call (src/domain/sessions/revocation.ts).
 */
export class SessionVerifier {
  private readonly memo = new Map<string, SessionClaims>();

  constructor(private readonly keyring: Keyring) {}

  async verify(environmentId: string, token: string): Promise<SessionClaims> {
    const now = Math.floor(Date.now() / 1000);
    const known = this.memo.get(token);
    if (known && known.environmentId === environmentId) {
      if (known.expiresAt > now) return known;
      this.memo.delete(token);
      throw unauthenticated("the session token has expired");
    }
    const claims = await this.verifyFully(environmentId, token);
    if (this.memo.size >= MEMO_SIZE) this.memo.delete(this.memo.keys().next().value!);
    this.memo.set(token, claims);
    return claims;
  }

  private async verifyFully(environmentId: string, token: string): Promise<SessionClaims> {
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      throw unauthenticated("the session token is malformed");
    }
    const key = kid ? await this.keyring.verifyingKey(environmentId, kid) : undefined;
    if (!key) throw unauthenticated("the session token is not signed by a key of this environment");
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key.key, { algorithms: [key.alg], issuer: issuerOf(environmentId), requiredClaims: ["sub", "exp", "iat"] }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw unauthenticated("the session token has expired");
      throw unauthenticated("the session token is invalid");
    }
    if (payload.environment_id !== environmentId || typeof payload.sid !== "string" || typeof payload.sub !== "string")
      throw unauthenticated("the session token is not one of this environment");
    return {
      environmentId,
      userId: payload.sub,
      sessionId: payload.sid,
      scope: typeof payload.scope === "string" ? payload.scope : BASE_SCOPE,
      issuedAt: payload.iat!,
      expiresAt: payload.exp!,
      ...(typeof payload.refresh_id === "string" ? { refreshId: payload.refresh_id } : {}),
    };
  }
}
