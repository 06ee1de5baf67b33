import { randomBytes } from "node:crypto";
import * as providers from "../../db/repositories/providers.js";
import { badRequest, conflict, DomainError, unprocessable } from "../../errors.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import { checkRedirectTarget, withQuery } from "../oauth/redirect-targets.js";
import { clientSecretAad } from "../providers/service.js";
import type { ClientMeta } from "../sessions/service.js";
import type { ProvenCredential } from "../sign-in/credentials.js";
import { linkCredential, signInWith, type SignInResult } from "../sign-in/pipeline.js";
import { hasEnoughEntropy } from "../sign-in/state-entropy.js";
import { spendOnce } from "../spent-credentials/service.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { DEFAULT_WIDGET_SCRIPT_URL, renderChatAuthPage } from "./page.js";
import { FRESHNESS_SECONDS, fieldsOfToken, verifyWidgetData, type ChatAccount, type WidgetFields } from "./widget.js";
import { observedSignIn } from "../sign-in/observed.js";

/**
 * A state's life: registered by the page (with the app's redirect URL), completed by the widget's post
 * (which mints the one-time code that goes, in that browser, to the app's page), used by one sign-in with
 * that code. The state alone is no proof: whoever picked it may have sent the page's link to someone else.
 */
const STATE_TTL_SECONDS = 600;
const stateKey = (environmentId: string, state: string) => `chat-auth:state:${environmentId}:${state}`;
const doneKey = (environmentId: string, state: string) => `chat-auth:done:${environmentId}:${state}`;
const codeKey = (environmentId: string, code: string) => `chat-auth:code:${environmentId}:${code}`;

/** The environment's enabled `chat` provider: the bot's name and token (sealed at rest, opened here). */
async function chatBot(deps: Deps, environmentId: string) {
  const p = await providers.findProviderByKind(deps.db, environmentId, "chat");
  if (!p || !p.enabledAt || !p.clientId || !p.clientSecretSealed)
    throw new DomainError("forbidden", "sign_in_method_disabled", "chat sign-in is not enabled in this environment (its chat provider needs the bot's name and token)");
  return { username: p.clientId, token: deps.sealer.open(p.clientSecretSealed, clientSecretAad(p.id)), widgetScriptUrl: p.authorizationUrl || DEFAULT_WIDGET_SCRIPT_URL };
}

/** What the store keeps for a registered state. */
interface PendingChatAuth {
  redirectUri: string;
}

/** A one-time code's account, for the state it was minted under. */
interface ChatAuthProof {
  state: string;
  account: ChatAccount;
}

/**
 * The widget page for a new state and the app's redirect URL (required, one of the environment's redirect
 * targets); a state is registered once (a second page for it is 409) and must be unpredictable.
 */
export async function openChatAuth(deps: Deps, env: PublicEnvironment, input: { state: string; redirectUrl?: string }) {
  const bot = await chatBot(deps, env.environmentId);
  if (!hasEnoughEntropy(input.state))
    throw badRequest("invalid_state", "state is too predictable (repeats or sequences): use 16+ random bytes, base64url or hex", { field: "state" });
  if (!input.redirectUrl)
    throw badRequest("redirect_url_required", "redirectUrl is required: the chat login goes only to the app's registered redirect URL", { field: "redirectUrl" });
  const pending: PendingChatAuth = { redirectUri: await checkRedirectTarget(deps, env.environmentId, input.redirectUrl) };
  if (!(await deps.store.setIfAbsent(stateKey(env.environmentId, input.state), JSON.stringify(pending), STATE_TTL_SECONDS)))
    throw conflict("chat_auth_state_in_use", "this state was already used: pick a new random state");
  return renderChatAuthPage({ state: input.state, botUsername: bot.username, widgetScriptUrl: bot.widgetScriptUrl });
}

/**
 * The widget's signed data for a registered state: verified with the bot token, used up (signed data is
 * accepted once, whichever way it comes), and kept under a one-time code. A state completes once. Answers
 * the state's redirect URL with the state and the code, for the page (in the browser that signed) to go to.
 */
export async function completeChatAuth(deps: Deps, env: PublicEnvironment, state: string, fields: WidgetFields): Promise<{ redirectUrl: string }> {
  const environmentId = env.environmentId;
  const raw = await deps.store.get(stateKey(environmentId, state));
  if (raw === null) throw new DomainError("not_found", "chat_auth_not_found", "no chat sign-in is waiting for this state (unknown, expired or used)");
  const pending = JSON.parse(raw) as PendingChatAuth;
  const account = await verifyOnce(deps, environmentId, fields);
  if (!(await deps.store.setIfAbsent(doneKey(environmentId, state), "1", STATE_TTL_SECONDS)))
    throw conflict("chat_auth_already_completed", "this state already has its chat login");
  const code = randomBytes(32).toString("base64url");
  const proof: ChatAuthProof = { state, account };
  await deps.store.set(codeKey(environmentId, code), JSON.stringify(proof), STATE_TTL_SECONDS);
  return { redirectUrl: withQuery(pending.redirectUri, { state, code }) };
}

/** Whether the state's widget data has arrived (changes nothing): 404 chat_auth_pending while not. */
export async function checkChatAuth(deps: Deps, env: PublicEnvironment, state: string): Promise<void> {
  if (!state) throw unprocessable("state_required", "state is required");
  if ((await deps.store.get(doneKey(env.environmentId, state))) !== null) return;
  if ((await deps.store.get(stateKey(env.environmentId, state))) !== null)
    throw new DomainError("not_found", "chat_auth_pending", "the chat login for this state has not arrived yet");
  throw new DomainError("not_found", "chat_auth_not_found", "no chat sign-in is waiting for this state (unknown, expired or used)");
}

/**
 * What a sign-in or link names: the state of the widget flow with the one-time code its page sent to the
 * app, or the widget's signed data as a token.
 */
export interface ChatAuthInput {
  state?: string;
  code?: string;
  chatAuthToken?: string;
}

export async function signInWithChat(deps: Deps, env: PublicEnvironment, input: ChatAuthInput, meta: ClientMeta): Promise<SignInResult> {
  return observedSignIn(deps, "chat", async () => {
    return signInWith(deps, env, await proveChatAccount(deps, env, input), meta);
  });
}

export async function linkChat(deps: Deps, env: PublicEnvironment, principal: EndUserPrincipal, input: ChatAuthInput, meta: ClientMeta) {
  return linkCredential(deps, env, principal, await proveChatAccount(deps, env, input), meta);
}

/** The chat account the state's data or the token proves; the state's data is taken (one sign-in wins). */
async function proveChatAccount(deps: Deps, env: PublicEnvironment, input: ChatAuthInput): Promise<ProvenCredential> {
  const environmentId = env.environmentId;
  let account: ChatAccount;
  if (input.chatAuthToken) account = await verifyOnce(deps, environmentId, fieldsOfToken(input.chatAuthToken));
  else if (input.state) {
    await chatBot(deps, environmentId); // still enabled
    if (!input.code)
      throw badRequest(
        "chat_auth_code_required",
        "send the state with the one-time code the chat login page sent to the app's redirect URL",
        { field: "code" },
      );
    // Taken whatever follows: a code tried with another state is used up, so it cannot be guessed at.
    const raw = await deps.store.take(codeKey(environmentId, input.code));
    const proof = raw ? (JSON.parse(raw) as ChatAuthProof) : null;
    if (!proof || proof.state !== input.state)
      throw badRequest("invalid_chat_auth_code", "unknown, expired, already used or mismatched code", { field: "code" });
    await deps.store.del(stateKey(environmentId, input.state));
    account = proof.account;
  } else throw unprocessable("chat_auth_required", "send the state of the chat login, or its signed data as chatAuthToken");
  const displayName = [account.firstName, account.lastName].filter(Boolean).join(" ");
  return {
    kind: "oauth",
    provider: "chat",
    accountId: account.id,
    ...(account.username ? { username: account.username } : {}),
    ...(displayName ? { displayName } : {}),
    emails: [],
    photos: account.photoUrl ? [account.photoUrl] : [],
    metadata: { authDate: new Date(account.authDate * 1000).toISOString() },
  };
}

/** Verifies the signed data with the environment's bot token and uses it up (a replay is 409). */
async function verifyOnce(deps: Deps, environmentId: string, fields: WidgetFields): Promise<ChatAccount> {
  const bot = await chatBot(deps, environmentId);
  const account = verifyWidgetData(bot.token, fields);
  // Spent in Postgres, not the store: a restart or a Redis that forgets must not let it sign in again.
  if (!(await spendOnce(deps.db, environmentId, "chat_login", fields.hash!.toLowerCase(), account.authDate + FRESHNESS_SECONDS)))
    throw conflict("chat_auth_replayed", "this chat login was already used: sign in with the widget again");
  return account;
}
