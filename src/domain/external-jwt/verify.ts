import { createPublicKey, type KeyObject } from "node:crypto";
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";
import { ProcessCache } from "../../store/process-cache.js";
import { effectiveSettings } from "../environments/settings.js";
import { privateResolution } from "../../net/destination-policy.js";

/** security.externalAuth of the environment settings document (sigil.environments.v0.ExternalAuthSettings). */
export interface ExternalAuthSettings {
  enabled?: boolean;
  iss?: string;
  aud?: string;
  jwksUrl?: string;
  publicKey?: string;
  allowedAlgorithms?: string[];
}

export function externalAuthSettingsOf(settings: Record<string, unknown>): ExternalAuthSettings {
  return (effectiveSettings(settings).security.externalAuth ?? {}) as ExternalAuthSettings;
}

/**
 * Signature algorithms an external provider's token may use: public-key ones only. `none` would need no
 * key, and an HMAC algorithm would take the (public) key as its secret: anyone could sign.
 */
const PUBLIC_KEY_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];

/** A JWKS fetch must not hang a sign-in. */
const JWKS_TIMEOUT_MS = 5000;
/** Issuer clocks drift a little. */
const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * One remote key set per environment and URL in this process: jose keeps the fetched keys, refetches them
 * after the max age, and at once when a token names a key id it does not know (a rotated-in key), but not
 * more often than the cooldown (a flood of tokens with made-up key ids cannot hammer the provider). So a
 * key the provider removed still verifies for at most the max age, on every replica alike.
 */
const remoteKeySets = new ProcessCache<JWTVerifyGetKey>(24 * 60 * 60_000, 1000);

export interface KeySetOptions {
  environmentId: string;
  environmentName: "live" | "sandbox";
  /** After a JWKS fetch, how long before an unknown key id may fetch it again; how long the keys are used. */
  jwksCooldownMs: number;
  jwksMaxAgeMs: number;
}

export type ExternalJwtVerdict = { payload: JWTPayload & { sub: string } } | { errors: string[] };

/**
 * The one check of an external identity provider's token, for the management check and for sign-in alike:
 * the signature with the configured keys (JWKS URL, else PEM public key) and algorithms, the expiry (a token
 * must carry one), a subject, and, when configured, issuer and audience. Every reason it fails is listed.
 */
export async function verifyExternalJwt(settings: ExternalAuthSettings, jwt: string, opts: KeySetOptions): Promise<ExternalJwtVerdict> {
  const errors: string[] = [];
  const key = await keySource(settings, opts, errors);
  if (!key) return { errors };
  try {
    const { payload } = await jwtVerify(jwt, key as KeyObject, {
      algorithms: allowedAlgorithms(settings),
      issuer: settings.iss || undefined,
      audience: settings.aud || undefined,
      requiredClaims: ["exp", "sub"],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    });
    if (typeof payload.sub !== "string" || payload.sub === "" || payload.sub.length > 255) return { errors: ["claim sub must be a string of 1 to 255 characters"] };
    return { payload: payload as JWTPayload & { sub: string } };
  } catch (err) {
    return { errors: [describe(err)] };
  }
}

/** The configured algorithms among the public-key ones; none configured: all of them. */
function allowedAlgorithms(settings: ExternalAuthSettings): string[] {
  const chosen = (settings.allowedAlgorithms ?? []).filter((a) => PUBLIC_KEY_ALGORITHMS.includes(a));
  return chosen.length > 0 ? chosen : PUBLIC_KEY_ALGORITHMS;
}

async function keySource(settings: ExternalAuthSettings, opts: KeySetOptions, errors: string[]): Promise<KeyObject | JWTVerifyGetKey | null> {
  if (settings.jwksUrl) {
    let url: URL;
    try {
      url = new URL(settings.jwksUrl);
    } catch {
      return void errors.push("the JWKS URL is not a URL"), null;
    }
    if (opts.environmentName === "live") {
      // As for webhooks: a live environment's settings must not make the service fetch from its own network.
      if (url.protocol !== "https:") return void errors.push("the JWKS URL of a live environment must use https"), null;
      const refused = await privateResolution(url.href);
      if (refused) return void errors.push(`the JWKS URL is refused: ${refused}`), null;
    }
    const cacheKey = `${opts.environmentId} ${opts.jwksCooldownMs} ${opts.jwksMaxAgeMs} ${url.href}`;
    return remoteKeySets.get(cacheKey, async () =>
      createRemoteJWKSet(url, { timeoutDuration: JWKS_TIMEOUT_MS, cooldownDuration: opts.jwksCooldownMs, cacheMaxAge: opts.jwksMaxAgeMs }),
    );
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
  if (err instanceof joseErrors.JWTClaimValidationFailed)
    return err.reason === "missing" ? `claim ${err.claim} is missing` : `claim ${err.claim} is not accepted: ${err.reason === "check_failed" ? "it does not match the configured value" : err.message}`;
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return "the signature does not verify with the configured key";
  if (err instanceof joseErrors.JWKSNoMatchingKey) return "no key of the JWKS matches the token";
  if (err instanceof joseErrors.JWKSTimeout) return "the JWKS URL did not answer in time";
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return "the token's algorithm is not accepted (the configured public-key algorithms only)";
  if (err instanceof joseErrors.JWSInvalid || err instanceof joseErrors.JWTInvalid) return `the token is malformed: ${err.message}`;
  if (err instanceof joseErrors.JOSEError) return err.message;
  return "the token could not be verified";
}
