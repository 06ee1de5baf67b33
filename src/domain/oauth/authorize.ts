import { createHash, randomBytes } from "node:crypto";
import { badRequest, conflict, notFound, unprocessable } from "../../errors.js";
import { hasEnoughEntropy } from "../sign-in/state-entropy.js";
import { findProviderByKind, type ProviderRecord } from "../../db/repositories/providers.js";
import type { Deps } from "../deps.js";
import { defaultScopes } from "../providers/kinds.js";
import { redirectUrlFor } from "../providers/service.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { isOidcKind, providerClient } from "./client.js";
import { renderAuthorizePage } from "./page.js";
import { checkRedirectTarget } from "./redirect-targets.js";

/** How long a started authorization may take before its state is forgotten. */
export const OAUTH_STATE_TTL_SECONDS = 600;
export const oauthStateKey = (state: string) => `oauth:state:${state}`;

/**
 * The one record of a started authorization, kept in the store under its state until the provider's
 * callback takes it (once: GETDEL). Whichever operation started it (authorizeHtml, loginUrl, login,
 * initAuth), the same callback finishes it.
 */
export interface OauthPendingAuthorization {
  environmentId: string;
  providerId: string;
  providerType: string;
  /** PKCE between Sigil and the provider (never leaves Sigil). */
  codeVerifier: string;
  nonce: string;
  /**
   * The app's page to send the browser back to after the callback (checked against the environment). Sigil's
   * one-time code leaves Sigil only there, in the browser that signed in at the provider: never to a poller.
   */
  redirectUri: string | null;
  /**
   * SHA-256 (base64url) of the flow's client verifier, for a flow started by an API call (loginUrl, initAuth):
   * the verifier went back in that call's response body, never in a URL, and Sigil's one-time code is
   * redeemed only with it. Null for a flow a browser started by navigation (there was no one to give it to).
   */
  clientVerifierHash: string | null;
  createdAt: string;
}

const b64url = (b: Buffer) => b.toString("base64url");
/** A state chosen by the client (initAuth): URL-safe, and as unguessable as ours (state-entropy.ts). */
const CLIENT_STATE = /^[A-Za-z0-9_.~-]{22,256}$/;

/** The digest kept of a client verifier (the verifier itself is never stored). */
export const clientVerifierDigest = (verifier: string) => b64url(createHash("sha256").update(verifier).digest());

/** Who started the flow: an API call gets a verifier back; a browser navigation cannot be handed one. */
export type OauthStarter = "api" | "browser";

/** The environment's enabled provider of that kind, or why it cannot be used. */
export async function usableProvider(deps: Deps, environmentId: string, providerType: string): Promise<ProviderRecord> {
  const provider = await findProviderByKind(deps.db, environmentId, providerType);
  if (!provider) throw notFound("provider");
  if (!provider.enabledAt) throw unprocessable("provider_disabled", `provider ${providerType} is disabled`);
  if (!provider.clientId || (!provider.authorizationUrl && !(isOidcKind(providerType) && provider.issuer)))
    throw unprocessable("provider_not_configured", `provider ${providerType} has no authorizationUrl or clientId`);
  return provider;
}

/** The issuer's authorization URL for a pending authorization: state, PKCE S256 challenge, OIDC nonce. */
async function authorizationUrl(deps: Deps, env: PublicEnvironment, provider: ProviderRecord, state: string, pending: OauthPendingAuthorization) {
  const endpoint = provider.authorizationUrl ?? (await providerClient(deps, env, provider)).serverMetadata().authorization_endpoint;
  if (!endpoint) throw unprocessable("provider_not_configured", `provider ${provider.provider} has no authorization endpoint`);
  const url = new URL(endpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", provider.clientId!);
  url.searchParams.set("redirect_uri", redirectUrlFor(deps.config.publicUrl, env.environmentId, provider.provider));
  const scope = provider.scopes || defaultScopes(provider.provider);
  if (scope) url.searchParams.set("scope", scope);
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", b64url(createHash("sha256").update(pending.codeVerifier).digest()));
  url.searchParams.set("code_challenge_method", "S256");
  if (isOidcKind(provider.provider)) url.searchParams.set("nonce", pending.nonce);
  // The partner kind answers by form_post (a POST to the callback), as its issuer requires with scopes.
  if (provider.provider === "partner") url.searchParams.set("response_mode", "form_post");
  return url.toString();
}

/**
 * Starts an authorization: a fresh PKCE verifier and nonce are stored under the state (ours, or the one
 * the client chose with initAuth, which must then be new and unguessable). Answers the issuer's URL to
 * open and, to an API caller, the flow's client verifier.
 *
 * Whoever starts a flow can send its link to someone else, so the result never goes back to the starter
 * by polling: it goes only to the registered redirect target, in the browser that signed in. An API
 * start without one could never be finished, so it is refused (400 redirect_url_required); a browser
 * start without one (the bare authorize page) runs, but its sign-in is not delivered anywhere.
 */
export async function beginAuthorization(
  deps: Deps,
  env: PublicEnvironment,
  input: { providerType: string; redirectUri?: string; state?: string; startedBy: OauthStarter },
): Promise<{ authorizationUrl: string; state: string; clientVerifier: string | null }> {
  const provider = await usableProvider(deps, env.environmentId, input.providerType);
  if (input.state !== undefined && !CLIENT_STATE.test(input.state))
    throw badRequest("invalid_state", "state must be 22 to 256 URL-safe characters", { field: "state" });
  if (input.state !== undefined && !hasEnoughEntropy(input.state))
    throw badRequest("invalid_state", "state is too predictable (repeats or sequences): use 16+ random bytes, base64url or hex", { field: "state" });
  if (input.startedBy === "api" && !input.redirectUri)
    throw badRequest("redirect_url_required", "redirectUrl is required: the sign-in's result goes only to the app's registered redirect URL", { field: "redirectUrl" });
  const redirectUri = input.redirectUri ? await checkRedirectTarget(deps, env.environmentId, input.redirectUri) : null;
  const state = input.state ?? b64url(randomBytes(32));
  const clientVerifier = input.startedBy === "api" ? b64url(randomBytes(32)) : null;
  const pending: OauthPendingAuthorization = {
    environmentId: env.environmentId,
    providerId: provider.id,
    providerType: input.providerType,
    codeVerifier: b64url(randomBytes(32)),
    nonce: b64url(randomBytes(16)),
    redirectUri,
    clientVerifierHash: clientVerifier ? clientVerifierDigest(clientVerifier) : null,
    createdAt: new Date().toISOString(),
  };
  const url = await authorizationUrl(deps, env, provider, state, pending);
  if (!(await deps.store.setIfAbsent(oauthStateKey(state), JSON.stringify(pending), OAUTH_STATE_TTL_SECONDS)))
    throw conflict("state_in_use", "this state already names an authorization; start with a new one");
  return { authorizationUrl: url, state, clientVerifier };
}

/** The authorization URL of a state started earlier (initAuth), without consuming it. */
export async function resumeAuthorization(deps: Deps, env: PublicEnvironment, providerType: string, state: string): Promise<string> {
  const raw = await deps.store.get(oauthStateKey(state));
  const pending = raw ? (JSON.parse(raw) as OauthPendingAuthorization) : null;
  if (!pending || pending.environmentId !== env.environmentId || pending.providerType !== providerType)
    throw badRequest("invalid_state", "unknown or expired state", { field: "state" });
  const provider = await usableProvider(deps, env.environmentId, providerType);
  if (provider.id !== pending.providerId) throw badRequest("invalid_state", "the provider changed since this authorization started", { field: "state" });
  return authorizationUrl(deps, env, provider, state, pending);
}

/**
 * The authorize page: a browser start (no verifier: nobody to hand it to), or with the state of an
 * initAuth the continuation of that flow, served as a locked-down page that sends the browser on.
 */
export async function startOauthAuthorization(
  deps: Deps,
  env: PublicEnvironment,
  input: { providerType: string; redirectUri?: string; state?: string },
): Promise<{ html: string; headers: Record<string, string>; authorizationUrl: string; state: string }> {
  const { authorizationUrl, state } = input.state
    ? { authorizationUrl: await resumeAuthorization(deps, env, input.providerType, input.state), state: input.state }
    : await beginAuthorization(deps, env, { providerType: input.providerType, redirectUri: input.redirectUri, startedBy: "browser" });
  const page = renderAuthorizePage(authorizationUrl, input.providerType);
  return { html: page.html, headers: page.headers, authorizationUrl, state };
}
