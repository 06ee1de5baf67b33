import { createHash, randomBytes, randomUUID } from "node:crypto";
import { findLink, upsertLink, type ExchangeLinkRecord } from "../../db/repositories/exchange-accounts.js";
import { findLiveSession } from "../../db/repositories/sessions.js";
import type { Deps } from "../deps.js";
import { checkRedirectTarget, withQuery } from "../oauth/redirect-targets.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { exchangeCodeOf } from "./answers.js";
import { invalidState, linkExpired, linkFailed, notLinked } from "./errors.js";
import { exchangeOfKey, type UsableExchange } from "./exchange.js";
import { storeLinkRecorded } from "./records.js";

/** How long a started link may wait for the user at the exchange. */
const LINK_STATE_TTL_SECONDS = 600;

const stateKey = (state: string) => `exchange-link:state:${createHash("sha256").update(state).digest("hex")}`;

/**
 * What a link's state stands for: this user of this environment, in this session, linking this exchange,
 * with this verifier.
 */
interface LinkGrant {
  environmentId: string;
  userId: string;
  sessionId: string;
  exchangeId: string;
  exchangeKey: string;
  verifier: string;
  redirectUrl: string | null;
}

/** Associated data binding a sealed token to its exchange, user and purpose. */
export const tokenAad = (exchangeId: string, userId: string, token: "access_token" | "refresh_token") => `exchange-link:${exchangeId}:${userId}:${token}`;

/** Sigil's redirect URI of an environment, registered with the exchange (the client's cbOauthRedirect, neutral path). */
export const exchangeRedirectUri = (deps: Pick<Deps, "config">, environmentId: string) =>
  `${deps.config.publicUrl}/api/v0/sdk/${environmentId}/providers/exchangeOauthRedirectUrl`;

/**
 * Starts linking the user's exchange account: a one-time state bound to user, environment and exchange, and
 * a PKCE verifier only Sigil holds (the exchange gets its S256 challenge), so a code can only be redeemed
 * for the flow that asked for it: another user's state with an attacker's code fails at the exchange.
 */
export async function startExchangeLink(
  deps: Deps,
  env: PublicEnvironment,
  session: { userId: string; sessionId: string },
  input: { exchangeKey: string; redirectUrl: string | null },
): Promise<{ url: string }> {
  const { userId, sessionId } = session;
  const ex = await exchangeOfKey(deps, env, input.exchangeKey);
  const redirectUrl = input.redirectUrl ? await checkRedirectTarget(deps, env.environmentId, input.redirectUrl) : null;
  const state = randomBytes(32).toString("base64url");
  const verifier = randomBytes(32).toString("base64url");
  const grant: LinkGrant = { environmentId: env.environmentId, userId, sessionId, exchangeId: ex.record.id, exchangeKey: ex.record.exchange, verifier, redirectUrl };
  await deps.store.set(stateKey(state), JSON.stringify(grant), LINK_STATE_TTL_SECONDS);
  const url = deps.exchangeApi.authorizationUrl(ex.target, {
    response_type: "code",
    client_id: ex.target.apiKey,
    redirect_uri: exchangeRedirectUri(deps, env.environmentId),
    state,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
  });
  return { url };
}

/** Where the browser goes after the redirect, if the link named a page of the app; the outcome in its query. */
export interface LinkOutcome {
  linked: boolean;
  redirectTo: string | null;
}

/** Whether the session that started a link is still live: not signed out, revoked or expired, its user there. */
async function sessionLive(deps: Pick<Deps, "db">, env: PublicEnvironment, grant: LinkGrant): Promise<boolean> {
  const live = await findLiveSession(deps.db, env.environmentId, grant.userId, grant.sessionId);
  return live !== null && (!live.expiresAt || live.expiresAt.getTime() > Date.now());
}

/**
 * The exchange's redirect: takes the state once (a replay finds nothing), redeems the code with the state's
 * verifier and seals the tokens, recorded in the audit trail under the user who started the link. A failure
 * with a page to return to goes there (exchangeLink=failed); without one it is the answer (400
 * exchange_link_failed). A link is an act of the session that started it: once that session is signed out
 * or revoked (perhaps because it was stolen) the code is not redeemed (error session_ended).
 */
export async function finishExchangeLink(
  deps: Deps,
  env: PublicEnvironment,
  params: { code: string; state: string; error: string },
  requestId: string,
): Promise<LinkOutcome> {
  if (!params.state) throw invalidState();
  const raw = await deps.store.take(stateKey(params.state));
  if (!raw) throw invalidState();
  const grant = JSON.parse(raw) as LinkGrant;
  if (grant.environmentId !== env.environmentId) throw invalidState();
  const failed = (error: string): LinkOutcome => {
    if (!grant.redirectUrl) throw linkFailed(error);
    return { linked: false, redirectTo: withQuery(grant.redirectUrl, { exchangeLink: "failed", error }) };
  };
  if (params.error || !params.code) return failed(params.error.slice(0, 64) || "no_code");
  if (!(await sessionLive(deps, env, grant))) return failed("session_ended");
  const ex = await exchangeOfKey(deps, env, grant.exchangeKey);
  // The connection was replaced meanwhile: its credentials are not the ones the exchange issued the code to.
  if (ex.record.id !== grant.exchangeId) throw invalidState();
  const answer = await deps.exchangeApi.token(ex.target, {
    grant_type: "authorization_code",
    code: params.code,
    redirect_uri: exchangeRedirectUri(deps, env.environmentId),
    code_verifier: grant.verifier,
  });
  if (answer.status < 200 || answer.status >= 300) return failed(exchangeCodeOf(answer.body) || `http_${answer.status}`);
  const sealed = sealTokens(deps, ex.record.id, grant.userId, answer.body, null);
  if (!sealed) return failed("no_access_token");
  const stored = await storeLinkRecorded(deps, { env, userId: grant.userId, requestId }, ex, sealed.record);
  // The user or the connection was deleted while the user was at the exchange.
  if (!stored) throw invalidState();
  return { linked: true, redirectTo: grant.redirectUrl ? withQuery(grant.redirectUrl, { exchangeLink: "linked" }) : null };
}

/** The exchange's token answer (OAuth 2 token response). */
interface TokenAnswer {
  access_token?: unknown;
  refresh_token?: unknown;
  expires_in?: unknown;
  scope?: unknown;
}

/**
 * A token answer sealed as the user's link (a refresh answer without a new refresh token keeps the old
 * one), with its access token; null when the answer had no access token.
 */
function sealTokens(deps: Pick<Deps, "sealer">, exchangeId: string, userId: string, answer: unknown, keptRefreshSealed: string | null) {
  const body = (answer ?? {}) as TokenAnswer;
  if (typeof body.access_token !== "string" || !body.access_token) return null;
  const seal = (value: string, token: "access_token" | "refresh_token") => deps.sealer.seal(value, tokenAad(exchangeId, userId, token));
  // The kept token is written anew: under the current sealing key, so that this write does not bring back a
  // key being retired on a row `sigil keys reseal` may already have passed.
  const kept = () =>
    keptRefreshSealed && deps.sealer.needsReseal(keptRefreshSealed)
      ? seal(deps.sealer.open(keptRefreshSealed, tokenAad(exchangeId, userId, "refresh_token")), "refresh_token")
      : keptRefreshSealed;
  const expiresIn = typeof body.expires_in === "number" && body.expires_in > 0 ? body.expires_in : null;
  return {
    accessToken: body.access_token,
    record: {
      id: randomUUID(),
      accessTokenSealed: seal(body.access_token, "access_token"),
      refreshTokenSealed: typeof body.refresh_token === "string" && body.refresh_token ? seal(body.refresh_token, "refresh_token") : kept(),
      expiresAt: expiresIn === null ? null : new Date(Date.now() + expiresIn * 1000),
      scope: typeof body.scope === "string" ? body.scope.slice(0, 1024) : null,
    },
  };
}

/** A token this close to its expiry is refreshed rather than sent: it could lapse on its way. */
const REFRESH_MARGIN_MS = 30_000;

const fresh = (link: ExchangeLinkRecord) => !link.expiresAt || link.expiresAt.getTime() > Date.now() + REFRESH_MARGIN_MS;

/**
 * The user's exchange access token: 422 exchange_not_linked without a link. A token at its expiry is
 * refreshed with the refresh token (grant_type=refresh_token); when the exchange refuses, or there is no
 * refresh token, 422 exchange_link_expired (the user links again).
 */
export async function userExchangeToken(deps: Pick<Deps, "db" | "sealer" | "exchangeApi">, env: PublicEnvironment, ex: UsableExchange, userId: string): Promise<string> {
  const link = await findLink(deps.db, env.environmentId, ex.record.id, userId);
  if (!link) throw notLinked(ex.record.exchange);
  const open = (l: ExchangeLinkRecord) => deps.sealer.open(l.accessTokenSealed, tokenAad(ex.record.id, userId, "access_token"));
  if (fresh(link)) return open(link);
  if (!link.refreshTokenSealed) throw linkExpired(ex.record.exchange);
  const refreshToken = deps.sealer.open(link.refreshTokenSealed, tokenAad(ex.record.id, userId, "refresh_token"));
  const answer = await deps.exchangeApi.token(ex.target, { grant_type: "refresh_token", refresh_token: refreshToken });
  const sealed = answer.status >= 200 && answer.status < 300 ? sealTokens(deps, ex.record.id, userId, answer.body, link.refreshTokenSealed) : null;
  if (sealed) {
    // A refresh keeps the link the user made (same grant, new tokens): housekeeping, not an audited change.
    if (!(await upsertLink(deps.db, env.environmentId, { ...sealed.record, exchangeId: ex.record.id, userId }))) throw notLinked(ex.record.exchange);
    return sealed.accessToken;
  }
  // Another request may have refreshed first (exchanges rotate refresh tokens, so this one's was spent): use its tokens.
  const now = await findLink(deps.db, env.environmentId, ex.record.id, userId);
  if (now && now.accessTokenSealed !== link.accessTokenSealed && fresh(now)) return open(now);
  throw linkExpired(ex.record.exchange);
}
