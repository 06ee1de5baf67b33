import { createHash, randomBytes } from "node:crypto";
import { notFound, unprocessable } from "../../errors.js";
import { findProviderByKind } from "../../db/repositories/providers.js";
import { findEnvironment } from "../../db/repositories/tenancy.js";
import type { Deps } from "../deps.js";
import { defaultScopes } from "../providers/kinds.js";
import { redirectUrlFor } from "../providers/service.js";
import { renderAuthorizePage } from "./page.js";

/** How long a started authorization may take before its state is forgotten. */
export const OAUTH_STATE_TTL_SECONDS = 600;
export const oauthStateKey = (state: string) => `oauth:state:${state}`;

/** What the redirect endpoint needs later to finish the flow (kept in the store, one-shot). */
export interface OauthPendingAuthorization {
  environmentId: string;
  providerId: string;
  providerType: string;
  codeVerifier: string;
  nonce: string;
  redirectUri: string | null;
  createdAt: string;
}

const b64url = (b: Buffer) => b.toString("base64url");

/**
 * Starts the environment's configured OAuth authorization for a browser: a fresh state and PKCE (S256)
 * verifier are stored; the page sends the browser to the issuer's authorization endpoint with them.
 */
export async function startOauthAuthorization(
  deps: Deps,
  input: { environmentId: string; providerType: string; redirectUri?: string },
): Promise<{ html: string; headers: Record<string, string>; authorizationUrl: string; state: string }> {
  if (!(await findEnvironment(deps.db, input.environmentId))) throw notFound("environment");
  const provider = await findProviderByKind(deps.db, input.environmentId, input.providerType);
  if (!provider) throw notFound("provider");
  if (!provider.enabledAt) throw unprocessable("provider_disabled", `provider ${input.providerType} is disabled`);
  if (!provider.authorizationUrl || !provider.clientId)
    throw unprocessable("provider_not_configured", `provider ${input.providerType} has no authorizationUrl or clientId`);

  const state = b64url(randomBytes(32));
  const codeVerifier = b64url(randomBytes(32));
  const nonce = b64url(randomBytes(16));
  const pending: OauthPendingAuthorization = {
    environmentId: input.environmentId,
    providerId: provider.id,
    providerType: input.providerType,
    codeVerifier,
    nonce,
    redirectUri: input.redirectUri || null,
    createdAt: new Date().toISOString(),
  };
  await deps.store.set(oauthStateKey(state), JSON.stringify(pending), OAUTH_STATE_TTL_SECONDS);

  const url = new URL(provider.authorizationUrl);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", provider.clientId);
  url.searchParams.set("redirect_uri", redirectUrlFor(deps.config.publicUrl, input.environmentId, input.providerType));
  const scope = provider.scopes || defaultScopes(input.providerType);
  if (scope) url.searchParams.set("scope", scope);
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", b64url(createHash("sha256").update(codeVerifier).digest()));
  url.searchParams.set("code_challenge_method", "S256");
  if (input.providerType === "oidc") url.searchParams.set("nonce", nonce);
  const authorizationUrl = url.toString();
  const page = renderAuthorizePage(authorizationUrl, input.providerType);
  return { html: page.html, headers: page.headers, authorizationUrl, state };
}
