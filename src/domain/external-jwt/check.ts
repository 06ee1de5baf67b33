import { createPublicKey, type KeyObject } from "node:crypto";
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from "jose";
import { notFound } from "../../errors.js";
import * as projects from "../../db/repositories/projects.js";
import type { Deps } from "../deps.js";
import { effectiveSettings } from "../environments/settings.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { privateResolution } from "../webhooks/destination-policy.js";

/** security.externalAuth of the environment settings document (sigil.environments.v0.ExternalAuthSettings). */
interface ExternalAuthSettings {
  enabled?: boolean;
  iss?: string;
  aud?: string;
  jwksUrl?: string;
  publicKey?: string;
}

export interface ExternalJwtCheck {
  valid: boolean;
  errors: string[];
}

/** Signature algorithms an external provider's token may use: public-key ones only (never none or HMAC). */
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];

/** A JWKS fetch must not hang a management call. */
const JWKS_TIMEOUT_MS = 5000;

/**
 * Would the environment accept this token of its external identity provider? Verifies the signature with
 * the configured keys (JWKS URL, else PEM public key), the expiry and, when configured, issuer and audience.
 * Changes nothing; every reason the token is refused is listed.
 */
export async function checkExternalJwt(deps: Deps, access: EnvironmentAccess, encodedJwt: string): Promise<ExternalJwtCheck> {
  const env = await projects.findEnvironmentRecord(deps.db, access.environmentId);
  if (!env) throw notFound("environment");
  const settings = (effectiveSettings(env.settings).security.externalAuth ?? {}) as ExternalAuthSettings;
  const errors: string[] = [];
  if (!settings.enabled) errors.push("external JWT authentication is not enabled for this environment");
  const key = await keySource(settings, access.environmentName, errors);
  if (!key) return { valid: false, errors };
  try {
    await jwtVerify(encodedJwt, key as KeyObject, {
      algorithms: ALGORITHMS,
      issuer: settings.iss || undefined,
      audience: settings.aud || undefined,
    });
  } catch (err) {
    errors.push(describe(err));
  }
  return { valid: errors.length === 0, errors };
}

async function keySource(settings: ExternalAuthSettings, environmentName: "live" | "sandbox", errors: string[]): Promise<KeyObject | JWTVerifyGetKey | null> {
  if (settings.jwksUrl) {
    const url = new URL(settings.jwksUrl);
    if (environmentName === "live") {
      // As for webhooks: a live environment's settings must not make the service fetch from its own network.
      if (url.protocol !== "https:") return void errors.push("the JWKS URL of a live environment must use https"), null;
      const refused = await privateResolution(url.href);
      if (refused) return void errors.push(`the JWKS URL is refused: ${refused}`), null;
    }
    return createRemoteJWKSet(url, { timeoutDuration: JWKS_TIMEOUT_MS });
  }
  if (settings.publicKey) {
    try {
      return createPublicKey(settings.publicKey);
    } catch {
      return void errors.push("the configured public key is not a PEM public key"), null;
    }
  }
  errors.push("no JWKS URL or public key is configured for external JWTs");
  return null;
}

/** jose's errors as sentences for the developer checking a token. */
function describe(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return "the token has expired";
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `claim ${err.claim} is not accepted: ${err.reason === "check_failed" ? "it does not match the configured value" : err.message}`;
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return "the signature does not verify with the configured key";
  if (err instanceof joseErrors.JWKSNoMatchingKey) return "no key of the JWKS matches the token";
  if (err instanceof joseErrors.JWKSTimeout) return "the JWKS URL did not answer in time";
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return "the token's algorithm is not accepted (public-key algorithms only)";
  if (err instanceof joseErrors.JWSInvalid || err instanceof joseErrors.JWTInvalid) return `the token is malformed: ${err.message}`;
  if (err instanceof joseErrors.JOSEError) return err.message;
  return "the token could not be verified";
}
