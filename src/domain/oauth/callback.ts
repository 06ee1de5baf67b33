import { randomBytes } from "node:crypto";
import * as oidc from "openid-client";
import { badRequest, DomainError } from "../../errors.js";
import { findProvider } from "../../db/repositories/providers.js";
import type { Deps } from "../deps.js";
import { redirectUrlFor } from "../providers/service.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { oauthStateKey, OAUTH_STATE_TTL_SECONDS, type OauthPendingAuthorization } from "./authorize.js";
import { isOidcKind, providerClient } from "./client.js";
import { withQuery } from "./redirect-targets.js";
import { credentialOf, type OauthCredential } from "./profile.js";

export const oauthResultKey = (state: string) => `oauth:result:${state}`;
export const oauthCodeKey = (code: string) => `oauth:code:${code}`;

/**
 * What oauthResult answers for a state: still waiting, or finished (or failed). Never Sigil's one-time
 * code: the state is in the provider's URL, and whoever started a flow can send its link to someone else,
 * so a code handed to a poller would be that someone's session.
 */
export type OauthResult = { status: "pending" } | { status: "completed" } | { status: "completed"; error: string };

/** The proven account behind a one-time code, until oauthSignIn / oauthVerify takes it. */
export interface OauthProof {
  environmentId: string;
  providerType: string;
  state: string;
  /** The flow's client verifier digest (API starts): the code is redeemed only with the verifier. */
  clientVerifierHash: string | null;
  credential: OauthCredential;
  /** The issuer's tokens, sealed (the store is at rest too) to this code. */
  tokensSealed: string;
}

export interface IssuerTokens {
  accessToken: string;
  refreshToken: string | null;
  idToken: string | null;
  scope: string | null;
  expiresAt: string | null;
}

export const proofAad = (code: string) => `oauth:code:${code}:tokens`;

const refused = (reason: string, message: string) => new DomainError("bad_request", "oauth_callback_refused", message, { reason });

/**
 * The provider's callback (GET with the query, or the form_post POST): takes the state (once), makes sure
 * the answer comes from the provider the state was started for (the path names it: mix-up defence, and
 * openid-client checks the RFC 9207 `iss` when the issuer sends one), redeems the code with the PKCE
 * verifier, validates the ID token (signature, issuer, audience, expiry, nonce) and reads the account.
 * Sigil's one-time code for it goes only into the redirect to the app's registered redirect URL, in this
 * browser (the one that signed in at the provider); a flow without one is checked but delivers nothing.
 * oauthResult learns the status.
 */
export async function finishAuthorization(
  deps: Deps,
  env: PublicEnvironment,
  providerType: string,
  params: URLSearchParams,
): Promise<{ state: string; redirectTo: string | null; result: OauthResult }> {
  const state = params.get("state") ?? "";
  if (!state) throw badRequest("invalid_state", "the callback has no state", { field: "state" });
  const raw = await deps.store.take(oauthStateKey(state));
  if (!raw) throw badRequest("invalid_state", "unknown, expired or already used state", { field: "state" });
  const pending = JSON.parse(raw) as OauthPendingAuthorization;
  if (pending.environmentId !== env.environmentId || pending.providerType !== providerType)
    throw badRequest("invalid_state", "this state was started for another provider or environment", { field: "state" });
  await deps.store.set(oauthResultKey(state), JSON.stringify({ status: "pending" }), OAUTH_STATE_TTL_SECONDS);

  let result: OauthResult;
  let code: string | null = null;
  let failure: DomainError | null = null;
  try {
    const error = params.get("error");
    if (error) throw refused("provider_error", `the provider answered ${error.slice(0, 100)}`);
    const proven = await redeem(deps, env, pending, state, params);
    if (pending.redirectUri) code = await issueCode(deps, env, pending, state, proven);
    result = { status: "completed" };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    failure = err;
    result = { status: "completed", error: String(err.payload?.reason ?? err.code) };
  }
  await deps.store.set(oauthResultKey(state), JSON.stringify(result), OAUTH_STATE_TTL_SECONDS);
  if (failure && !pending.redirectUri) throw failure;
  return { state, result, redirectTo: pending.redirectUri ? backToApp(pending.redirectUri, state, code, result) : null };
}

/**
 * The app's URL with the outcome in the query under OAuth's own names (RFC 6749 4.1.2): `state`, and
 * Sigil's one-time `code` for signIn / verify, or `error`.
 */
function backToApp(redirectUri: string, state: string, code: string | null, result: OauthResult): string {
  return withQuery(redirectUri, { state, ...(code ? { code } : {}), ...("error" in result ? { error: result.error } : {}) });
}

/** Sigil's one-time code for a proven account, kept (with the issuer's tokens sealed to it) for signIn / verify. */
async function issueCode(deps: Deps, env: PublicEnvironment, pending: OauthPendingAuthorization, state: string, proven: ProvenAccount): Promise<string> {
  const code = randomBytes(32).toString("base64url");
  const proof: OauthProof = {
    environmentId: env.environmentId,
    providerType: pending.providerType,
    state,
    clientVerifierHash: pending.clientVerifierHash ?? null,
    credential: proven.credential,
    tokensSealed: deps.sealer.seal(JSON.stringify(proven.tokens), proofAad(code)),
  };
  await deps.store.set(oauthCodeKey(code), JSON.stringify(proof), OAUTH_STATE_TTL_SECONDS);
  return code;
}

interface ProvenAccount {
  credential: OauthCredential;
  tokens: IssuerTokens;
}

async function redeem(deps: Deps, env: PublicEnvironment, pending: OauthPendingAuthorization, state: string, params: URLSearchParams): Promise<ProvenAccount> {
  const provider = await findProvider(deps.db, env.environmentId, pending.providerId);
  if (!provider || !provider.enabledAt || provider.provider !== pending.providerType)
    throw refused("provider_changed", "the provider was removed or disabled during the authorization");
  const config = await providerClient(deps, env, provider);
  const isOidc = isOidcKind(provider.provider);
  const callbackUrl = new URL(redirectUrlFor(deps.config.publicUrl, env.environmentId, provider.provider));
  for (const [k, v] of params) callbackUrl.searchParams.append(k, v);
  let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: pending.codeVerifier,
      expectedState: state,
      expectedNonce: isOidc ? pending.nonce : undefined,
      idTokenExpected: isOidc,
    });
  } catch (err) {
    throw refused(reasonOf(err), `the provider's answer was refused: ${(err as Error).message}`);
  }
  const claims: Record<string, unknown> = (isOidc ? tokens.claims() : undefined) ?? {};
  let userinfo: Record<string, unknown> = {};
  try {
    if (isOidc && config.serverMetadata().userinfo_endpoint) userinfo = { ...(await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub))) };
    else if (!isOidc) {
      const res = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(provider.userinfoUrl!), "GET");
      if (!res.ok) throw new Error(`userinfo answered ${res.status}`);
      userinfo = (await res.json()) as Record<string, unknown>;
    }
  } catch (err) {
    throw refused("userinfo_failed", `the provider's userinfo could not be read: ${(err as Error).message}`);
  }
  const credential = credentialOf(provider.provider, provider.preset, isOidc, claims, userinfo);
  const issued: IssuerTokens = {
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token ?? null,
    idToken: tokens.id_token ?? null,
    scope: tokens.scope ?? null,
    expiresAt: tokens.expires_in ? new Date(Date.now() + tokens.expires_in * 1000).toISOString() : null,
  };
  return { credential, tokens: issued };
}

/** A short reason for the result and the error payload (never the provider's tokens). */
function reasonOf(err: unknown): string {
  const e = err as { code?: string; error?: string; message?: string };
  if (e.error) return e.error; // the token endpoint's OAuth error, e.g. invalid_grant
  // openid-client wraps oauth4webapi's error, whose cause names the claim that failed.
  const chain: { claim?: string; message?: string; cause?: unknown }[] = [];
  for (let c = err as { cause?: unknown } | undefined; c && typeof c === "object" && chain.length < 5; c = c.cause as typeof c) chain.push(c);
  const claim = chain.find((c) => typeof c.claim === "string")?.claim;
  if (chain.some((c) => /signature/i.test(c.message ?? ""))) return "id_token_signature";
  if (claim === "aud" || claim === "azp") return "id_token_audience";
  if (claim === "nonce") return "nonce_mismatch";
  if (claim === "iss") return "issuer_mismatch";
  if (claim === "exp" || claim === "iat") return "id_token_expired";
  const m = e.message ?? "";
  if (/nonce/i.test(m)) return "nonce_mismatch";
  if (/"aud"|audience/i.test(m)) return "id_token_audience";
  if (/"exp"|expired|timestamp/i.test(m)) return "id_token_expired";
  if (/"iss"|issuer/i.test(m)) return "issuer_mismatch";
  return e.code ?? "token_exchange_failed";
}
