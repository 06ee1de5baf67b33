import * as providers from "../../db/repositories/providers.js";
import { conflict, DomainError, unprocessable } from "../../errors.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import { clientSecretAad } from "../providers/service.js";
import type { ClientMeta } from "../sessions/service.js";
import type { ProvenCredential } from "../sign-in/credentials.js";
import { linkCredential, signInWith, type SignInResult } from "../sign-in/pipeline.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { DEFAULT_WIDGET_SCRIPT_URL, renderChatAuthPage } from "./page.js";
import { FRESHNESS_SECONDS, fieldsOfToken, verifyWidgetData, type ChatAccount, type WidgetFields } from "./widget.js";

/** A state's life: registered by the page, completed by the widget's post, used by one sign-in. */
const STATE_TTL_SECONDS = 600;
const stateKey = (environmentId: string, state: string) => `chat-auth:state:${environmentId}:${state}`;
const doneKey = (environmentId: string, state: string) => `chat-auth:done:${environmentId}:${state}`;
const usedKey = (environmentId: string, hash: string) => `chat-auth:used:${environmentId}:${hash.toLowerCase()}`;

/** The environment's enabled `chat` provider: the bot's name and token (sealed at rest, opened here). */
async function chatBot(deps: Deps, environmentId: string) {
  const p = await providers.findProviderByKind(deps.db, environmentId, "chat");
  if (!p || !p.enabledAt || !p.clientId || !p.clientSecretSealed)
    throw new DomainError("forbidden", "sign_in_method_disabled", "chat sign-in is not enabled in this environment (its chat provider needs the bot's name and token)");
  return { username: p.clientId, token: deps.sealer.open(p.clientSecretSealed, clientSecretAad(p.id)), widgetScriptUrl: p.authorizationUrl || DEFAULT_WIDGET_SCRIPT_URL };
}

/** The widget page for a new state; a state is registered once (a second page for it is 409). */
export async function openChatAuth(deps: Deps, env: PublicEnvironment, state: string) {
  const bot = await chatBot(deps, env.environmentId);
  if (!(await deps.store.setIfAbsent(stateKey(env.environmentId, state), "pending", STATE_TTL_SECONDS)))
    throw conflict("chat_auth_state_in_use", "this state was already used: pick a new random state");
  return renderChatAuthPage({ state, botUsername: bot.username, widgetScriptUrl: bot.widgetScriptUrl });
}

/**
 * The widget's signed data for a registered state: verified with the bot token, used up (signed data is
 * accepted once, whichever way it comes), and kept for the state's sign-in. A state completes once.
 */
export async function completeChatAuth(deps: Deps, env: PublicEnvironment, state: string, fields: WidgetFields): Promise<void> {
  const environmentId = env.environmentId;
  if ((await deps.store.get(stateKey(environmentId, state))) === null)
    throw new DomainError("not_found", "chat_auth_not_found", "no chat sign-in is waiting for this state (unknown, expired or used)");
  const account = await verifyOnce(deps, environmentId, fields);
  if (!(await deps.store.setIfAbsent(doneKey(environmentId, state), JSON.stringify(account), STATE_TTL_SECONDS)))
    throw conflict("chat_auth_already_completed", "this state already has its chat login");
}

/** Whether the state's widget data has arrived (changes nothing): 404 chat_auth_pending while not. */
export async function checkChatAuth(deps: Deps, env: PublicEnvironment, state: string): Promise<void> {
  if (!state) throw unprocessable("state_required", "state is required");
  if ((await deps.store.get(doneKey(env.environmentId, state))) !== null) return;
  if ((await deps.store.get(stateKey(env.environmentId, state))) !== null)
    throw new DomainError("not_found", "chat_auth_pending", "the chat login for this state has not arrived yet");
  throw new DomainError("not_found", "chat_auth_not_found", "no chat sign-in is waiting for this state (unknown, expired or used)");
}

/** What a sign-in or link names: the state of the widget flow, or the widget's signed data as a token. */
export interface ChatAuthInput {
  state?: string;
  chatAuthToken?: string;
}

export async function signInWithChat(deps: Deps, env: PublicEnvironment, input: ChatAuthInput, meta: ClientMeta): Promise<SignInResult> {
  return signInWith(deps, env, await proveChatAccount(deps, env, input), meta);
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
    const done = await deps.store.take(doneKey(environmentId, input.state));
    if (done === null) {
      const pending = (await deps.store.get(stateKey(environmentId, input.state))) !== null;
      throw pending
        ? new DomainError("not_found", "chat_auth_pending", "the chat login for this state has not arrived yet")
        : new DomainError("not_found", "chat_auth_not_found", "no chat sign-in is waiting for this state (unknown, expired or used)");
    }
    await deps.store.del(stateKey(environmentId, input.state));
    account = JSON.parse(done) as ChatAccount;
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
  if (!(await deps.store.setIfAbsent(usedKey(environmentId, fields.hash!), "1", FRESHNESS_SECONDS + 120)))
    throw conflict("chat_auth_replayed", "this chat login was already used: sign in with the widget again");
  return account;
}
