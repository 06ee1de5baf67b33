import * as oidc from "openid-client";
import { unprocessable } from "../../errors.js";
import type { ProviderRecord } from "../../db/repositories/providers.js";
import type { Deps } from "../deps.js";
import { isLoopbackHost } from "../hosts.js";
import { clientSecretAad } from "../providers/service.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { privateResolution } from "../../net/destination-policy.js";

/** Provider kinds whose issuer speaks OpenID Connect (ID token, discovery); the others are plain OAuth 2. */
const OIDC_KINDS = new Set(["oidc", "partner"]);
export const isOidcKind = (kind: string) => OIDC_KINDS.has(kind);

/** Discovery and keys are fetched once per provider version and kept this long. */
const CONFIG_TTL_MS = 5 * 60_000;
const configs = new Map<string, { config: oidc.Configuration; until: number }>();

const notConfigured = (why: string) => unprocessable("provider_not_configured", why);

/**
 * The issuer's URLs obey the rule of every fetch made on a tenant's behalf (external JWKS, webhooks): a
 * live environment reaches public https hosts only; a sandbox may also use plain http on loopback, the
 * only case where openid-client's allowInsecureRequests is turned on.
 */
async function transportFor(env: PublicEnvironment, urls: (string | null | undefined)[]): Promise<{ insecure: boolean }> {
  let insecure = false;
  for (const raw of urls) {
    if (!raw) continue;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw notConfigured(`the provider URL ${raw} is not a URL`);
    }
    if (url.protocol === "https:") {
      if (env.environmentName === "live") {
        const refused = await privateResolution(url.href);
        if (refused) throw notConfigured(`the provider URL ${url.origin} is refused: ${refused}`);
      }
      continue;
    }
    if (url.protocol === "http:" && env.environmentName === "sandbox" && isLoopbackHost(url.hostname)) {
      insecure = true;
      continue;
    }
    throw notConfigured(`the provider URL ${url.origin} must use https${env.environmentName === "sandbox" ? " (http only on loopback)" : ""}`);
  }
  return { insecure };
}

/**
 * openid-client's view of the environment's provider: discovered from its issuer for OpenID Connect kinds
 * (endpoints, keys), else the configured endpoints of a plain OAuth 2 provider. Cached per provider version.
 */
export async function providerClient(deps: Deps, env: PublicEnvironment, p: ProviderRecord): Promise<oidc.Configuration> {
  const cacheKey = `${p.id}:${p.updatedAt.getTime()}`;
  const hit = configs.get(cacheKey);
  if (hit && hit.until > Date.now()) return hit.config;
  if (!p.clientId) throw notConfigured(`provider ${p.provider} has no clientId`);
  const secret = p.clientSecretSealed ? deps.sealer.open(p.clientSecretSealed, clientSecretAad(p.id)) : undefined;
  let config: oidc.Configuration;
  if (isOidcKind(p.provider)) {
    if (!p.issuer) throw notConfigured(`provider ${p.provider} needs its issuer to validate ID tokens`);
    const { insecure } = await transportFor(env, [p.issuer]);
    try {
      config = await oidc.discovery(new URL(p.issuer), p.clientId, secret, undefined, {
        execute: insecure ? [oidc.allowInsecureRequests] : [],
        timeout: 10,
      });
    } catch (err) {
      throw unprocessable("provider_unreachable", `discovery of ${p.issuer} failed: ${(err as Error).message}`);
    }
    // ID tokens are checked against the issuer's published keys even though they come straight from its
    // token endpoint: a sandbox's loopback issuer has no TLS to vouch for them, and it costs one cached JWKS.
    oidc.enableNonRepudiationChecks(config);
  } else {
    if (!p.authorizationUrl || !p.tokenUrl || !p.userinfoUrl)
      throw notConfigured(`provider ${p.provider} needs authorizationUrl, tokenUrl and userinfoUrl`);
    const { insecure } = await transportFor(env, [p.authorizationUrl, p.tokenUrl, p.userinfoUrl]);
    config = new oidc.Configuration(
      {
        // Plain OAuth 2 has no issuer identifier; its authorization server's origin stands in for one.
        issuer: p.issuer || new URL(p.authorizationUrl).origin,
        authorization_endpoint: p.authorizationUrl,
        token_endpoint: p.tokenUrl,
        userinfo_endpoint: p.userinfoUrl,
      },
      p.clientId,
      secret,
    );
    if (insecure) oidc.allowInsecureRequests(config);
  }
  if (configs.size > 1000) configs.clear();
  configs.set(cacheKey, { config, until: Date.now() + CONFIG_TTL_MS });
  return config;
}
