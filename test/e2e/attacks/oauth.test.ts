import { randomBytes } from "node:crypto";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../../src/domain/tenancy/bootstrap.js";
import { SdkChatSignInService } from "../../../src/gen/sigil/chat_sign_in/v0/chat_sign_in_service_pb.js";
import { OauthService } from "../../../src/gen/sigil/oauth/v0/oauth_service_pb.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { call } from "../../support/http.js";
import { neutralWords } from "../../support/neutral-words.js";
import { refused, sdkFor } from "../../support/sdk-client.js";
import { approveAtProvider, Browser } from "../support/browser.js";
import { clientChatUser, signWidget, widgetUser } from "../support/chat-widget.js";
import { kind, startLogin, withQuery } from "../support/oauth-flow.js";
import { startOidcPeer, type OidcPeer } from "../support/oidc-peer.js";

/**
 * Taking over an account by polling an OAuth flow, through the published client (REST) and over gRPC. The
 * attacker starts a flow (loginUrl, initAuth with a state of their choosing, or the authorize page), sends
 * its link (the provider's, or Sigil's own login?state=) to the victim, who signs in at the provider, and
 * then polls oauthResult and signs in with what it answers. The result must reach only the browser that
 * signed in: Sigil's one-time code goes only to the app's registered redirect URL, never to a poller, and
 * the code of a flow started by an API call is redeemed only with that call's verifier (never in a URL).
 * The chat widget's sign-in by state is the same class: the attacker picks the state and sends the link
 * of Sigil's widget page; the widget's result must reach only the app's page in the victim's browser.
 */

let app: TestApp;
let t: BootstrapResult;
let idp: OidcPeer;
let publicHost: string;
let appHost: string;
const APP_ORIGIN = "https://app.victim-bank.example";
const APP_PAGE = `${APP_ORIGIN}/after-sign-in`;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: `oauth-takeover-${Date.now()}@example.com` });
  publicHost = new URL(app.config.publicUrl).host;
  appHost = new URL(app.baseUrl).host;
  idp = await startOidcPeer({ redirectUris: [`${app.config.publicUrl}/api/v0/sdk/${t.environmentId}/providers/oidc/redirect`] });
  const provider = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/settings/providers`, {
    token: t.token,
    body: { provider: "oidc", clientId: idp.clientId, clientSecret: idp.clientSecret, issuer: idp.issuer },
  });
  expect(provider.status, provider.text).toBe(201);
  const origin = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/origins`, { token: t.token, body: { origin: APP_ORIGIN } });
  expect(origin.status, origin.text).toBeLessThan(300);
  const chat = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/settings/providers`, { token: t.token, body: { provider: "chat", clientId: BOT.name, clientSecret: BOT.token } });
  expect(chat.status, chat.text).toBe(201);
}, 60_000);
const BOT = { name: "takeover_test_bot", token: `424242:${randomBytes(16).toString("hex")}` };
afterAll(async () => {
  await idp?.close();
  await app?.stop();
});

const env = () => ({ environmentId: t.environmentId, providerType: kind("oidc") });
const sdk = (jwt?: string) => sdkFor(app.baseUrl, jwt);
const grpc = () => createClient(OauthService, createGrpcTransport({ baseUrl: app.baseUrl }));
const randomState = () => randomBytes(16).toString("base64url");
const victimLogin = () => `victim-${Date.now()}-${randomBytes(3).toString("hex")}`;

/** loginUrl through the published client, read raw: the typed answer has no place for codeVerifier. */
const loginUrl = () => startLogin(sdk(), { environmentId: t.environmentId, providerType: "oidc", redirectUrl: APP_PAGE });

/**
 * The victim's part: their browser opens the link, they sign in at the provider and approve, and the
 * browser follows Sigil's callback to wherever it leads (stopping at the app's page). Answers where it ended.
 */
async function victimOpens(link: string, login: string) {
  const browser = new Browser({ [publicHost]: appHost });
  let page = await approveAtProvider(browser, link, login, publicHost);
  if (page.status >= 300) page = await browser.open(page.url, { stopAt: (u) => u.origin === APP_ORIGIN });
  return page;
}

/** The victim's own account, signed in once the honest way (their app, their browser, their verifier). */
async function victimAccount(login: string) {
  const start = await loginUrl();
  const landed = await victimOpens(start.url, login);
  const code = new URL(landed.url).searchParams.get("code")!;
  const signIn = await sdk().oauthSignIn({ ...env(), oauthRequest: { code, state: start.state, codeVerifier: start.codeVerifier } });
  return signIn.user.id;
}

/** What a poller learns, and whether any sign-in it can make with it works. */
async function attackerPollsAndSignsIn(state: string, codeVerifier: string | undefined) {
  const result = await sdk().oauthResult({ ...env(), oauthResultRequest: { state } });
  // Whatever the poll answered as a code, and a guess.
  const tries = [result.code, randomBytes(32).toString("base64url")].filter((c): c is string => !!c);
  const outcomes = [];
  for (const code of tries) outcomes.push(await refused(sdk().oauthSignIn({ ...env(), oauthRequest: { code, state, codeVerifier } })).catch((e: Error) => e));
  return { result, outcomes };
}

describe("polling a flow the attacker started (REST, published client)", () => {
  it("loginUrl: the victim signs in at the genuine provider link; the attacker's poll gets no code and no session", async () => {
    const login = victimLogin();
    const victimId = await victimAccount(login);
    const attacker = await loginUrl();
    const landed = await victimOpens(attacker.url, login);
    const { result, outcomes } = await attackerPollsAndSignsIn(attacker.state, attacker.codeVerifier);
    expect(result.status).toBe("completed");
    expect(result.code).toBeFalsy();
    for (const o of outcomes) expect(o).toMatchObject({ status: 400, body: { code: "invalid_oauth_code" } });
    // The code went to the app's registered page, in the victim's browser; the verifier is in no URL.
    expect(landed.url.startsWith(`${APP_PAGE}?`)).toBe(true);
    expect(attacker.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(attacker.url).not.toContain(attacker.codeVerifier);
    // The app's page in the victim's browser has the code but not the attacker's verifier: nobody signs in.
    const code = new URL(landed.url).searchParams.get("code")!;
    const appTry = await refused(sdk().oauthSignIn({ ...env(), oauthRequest: { code, state: attacker.state } }));
    expect(appTry).toMatchObject({ status: 400, body: { code: "invalid_code_verifier" } });
    const sessions = await app.db.one("SELECT count(*)::int AS n FROM sessions WHERE user_id = $1", [victimId]);
    expect(sessions.n).toBe(1);
  });

  it("initAuth with the attacker's state and a link on Sigil's own domain (login?state=, authorizeHtml?state=): no code to the poller", async () => {
    const login = victimLogin();
    await victimAccount(login);
    const sigilLinks: ((state: string) => Promise<string>)[] = [
      async (state) => `${app.config.publicUrl}/api/v0/sdk/${t.environmentId}/providers/oidc/login?state=${state}`,
      // The authorize page with the state continues the attacker's flow: its link to the provider.
      async (state) => /href="([^"]+)"/.exec(await sdk().oauthAuthorizeHtml({ ...env(), state }))![1]!.replace(/&amp;/g, "&"),
    ];
    for (const sigilLink of sigilLinks) {
      const state = randomState();
      const init = await sdk().initAuthRaw({ ...env(), oauthInitAuthRequest: { state, redirectUrl: APP_PAGE } });
      const { codeVerifier } = (await init.raw.json().catch(() => ({}))) as { codeVerifier?: string };
      const link = await sigilLink(state);
      expect(new URL(link).searchParams.get("state") ?? state).toBe(state);
      const landed = await victimOpens(link, login);
      const { result, outcomes } = await attackerPollsAndSignsIn(state, codeVerifier);
      expect(result).toMatchObject({ status: "completed" });
      expect(result.code).toBeFalsy();
      for (const o of outcomes) expect(o).toMatchObject({ status: 400, body: { code: "invalid_oauth_code" } });
      expect(new URL(landed.url).origin).toBe(APP_ORIGIN);
      expect(init.raw.status).toBe(200);
      expect(codeVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
  });

  it("the authorize page's provider link: the poller gets no code, with or without a redirect target", async () => {
    for (const redirectUri of [undefined, APP_PAGE]) {
      const login = victimLogin();
      await victimAccount(login);
      const html = await sdk().oauthAuthorizeHtml({ ...env(), ...(redirectUri ? { redirectUri } : {}) });
      const link = /href="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, "&");
      const state = new URL(link).searchParams.get("state")!;
      const landed = await victimOpens(link, login);
      const { result, outcomes } = await attackerPollsAndSignsIn(state, undefined);
      expect(result.code).toBeFalsy();
      for (const o of outcomes) expect(o).toMatchObject({ status: 400, body: { code: "invalid_oauth_code" } });
      if (redirectUri) expect(landed.url.startsWith(`${APP_PAGE}?`)).toBe(true);
      else expect(landed.body).toContain("named no page of the app");
    }
  });
});

describe("Sigil's one-time code and the flow's verifier", () => {
  /** An honest flow up to the app's page: its code (as a leaked URL would show it), state and verifier. */
  async function honestFlowToApp() {
    const start = await loginUrl();
    const landed = await victimOpens(start.url, victimLogin());
    return { code: new URL(landed.url).searchParams.get("code")!, state: start.state, codeVerifier: start.codeVerifier! };
  }

  it("a code from the redirect URL without the verifier is refused, and is then used up", async () => {
    const flow = await honestFlowToApp();
    const leaked = await refused(sdk().oauthSignIn({ ...env(), oauthRequest: { code: flow.code, state: flow.state } }));
    expect(leaked).toMatchObject({ status: 400, body: { code: "invalid_code_verifier", payload: { field: "codeVerifier" } } });
    const late = await refused(sdk().oauthSignIn({ ...env(), oauthRequest: flow }));
    expect(late).toMatchObject({ status: 400, body: { code: "invalid_oauth_code" } });
  });

  it("a wrong verifier burns the code (no guessing); oauthVerify holds the same rule", async () => {
    const flow = await honestFlowToApp();
    const wrong = await refused(sdk().oauthSignIn({ ...env(), oauthRequest: { ...flow, codeVerifier: randomBytes(32).toString("base64url") } }));
    expect(wrong).toMatchObject({ status: 400, body: { code: "invalid_code_verifier" } });
    expect(await refused(sdk().oauthSignIn({ ...env(), oauthRequest: flow }))).toMatchObject({ status: 400, body: { code: "invalid_oauth_code" } });

    const someone = await honestFlowToApp();
    const session = await sdk().oauthSignIn({ ...env(), oauthRequest: someone });
    const link = await honestFlowToApp();
    const noVerifier = await refused(sdk(session.jwt!).oauthVerify({ ...env(), oauthRequest: { code: link.code, state: link.state } }));
    expect(noVerifier).toMatchObject({ status: 400, body: { code: "invalid_code_verifier" } });
  });

  it("a verifier is good for its own flow's code once: replayed, or with another flow's code, it is refused", async () => {
    const first = await honestFlowToApp();
    expect((await sdk().oauthSignIn({ ...env(), oauthRequest: first })).jwt).toBeTruthy();
    expect(await refused(sdk().oauthSignIn({ ...env(), oauthRequest: first }))).toMatchObject({ status: 400, body: { code: "invalid_oauth_code" } });
    const second = await honestFlowToApp();
    const crossed = await refused(sdk().oauthSignIn({ ...env(), oauthRequest: { ...second, codeVerifier: first.codeVerifier } }));
    expect(crossed).toMatchObject({ status: 400, body: { code: "invalid_code_verifier" } });
  });

  it("an API start without a redirect target is refused: its result could never reach anyone safely", async () => {
    const res = await fetch(`${app.baseUrl}/api/v0/sdk/${t.environmentId}/providers/oidc/loginUrl`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "redirect_url_required" });
    const init = await refused(sdk().initAuth({ ...env(), oauthInitAuthRequest: { state: randomState() } }));
    expect(init).toMatchObject({ status: 400, body: { code: "redirect_url_required" } });
  });
});

describe("client-chosen states", () => {
  it("refuses predictable states (repeats, sequences, small alphabets) and takes random ones", async () => {
    for (const state of ["aaaaaaaaaaaaaaaaaaaaaa", "abcdefghijklmnopqrstuv", "abababababababababababab", "0123456789012345678901234", "passwordpasswordpassword"]) {
      const r = await refused(sdk().initAuth({ ...env(), oauthInitAuthRequest: { state, redirectUrl: APP_PAGE } }));
      expect(r, state).toMatchObject({ status: 400, body: { code: "invalid_state", payload: { field: "state" } } });
    }
    for (const state of [randomBytes(16).toString("base64url"), randomBytes(16).toString("hex"), randomBytes(32).toString("base64url")])
      await sdk().initAuth({ ...env(), oauthInitAuthRequest: { state, redirectUrl: APP_PAGE } });
  });
});

describe("over gRPC", () => {
  it("the attacker's loginUrl link: the poll answers no code; the flow's code needs the verifier and burns on a wrong one", async () => {
    const client = grpc();
    const login = victimLogin();
    await victimAccount(login);
    const started = await client.oauthLoginUrl({ environmentId: t.environmentId, providerType: "oidc", redirectUrl: APP_PAGE });
    const state = new URL(started.url).searchParams.get("state")!;
    const landed = await victimOpens(started.url, login);
    const polled = await client.oauthResult({ environmentId: t.environmentId, providerType: "oidc", result: { state } });
    expect([polled.status, polled.code]).toEqual(["completed", ""]);
    expect(started.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const noCode = await client.oauthSignIn({ environmentId: t.environmentId, providerType: "oidc", proof: { code: "x".repeat(43), state, codeVerifier: started.codeVerifier } }).catch((e) => e);
    expect(noCode).toBeInstanceOf(ConnectError);
    expect((noCode as ConnectError).code).toBe(Code.InvalidArgument);

    // The code that reached the app's page, with a wrong verifier: refused, and used up.
    const code = new URL(landed.url).searchParams.get("code")!;
    const wrong = await client.oauthSignIn({ environmentId: t.environmentId, providerType: "oidc", proof: { code, state, codeVerifier: "w".repeat(43) } }).catch((e) => e);
    expect((wrong as ConnectError).code).toBe(Code.InvalidArgument);
    expect((wrong as ConnectError).rawMessage).toMatch(/codeVerifier/);
    const late = await client.oauthSignIn({ environmentId: t.environmentId, providerType: "oidc", proof: { code, state, codeVerifier: started.codeVerifier } }).catch((e) => e);
    expect((late as ConnectError).code).toBe(Code.InvalidArgument);
  });

  it("initAuth answers the verifier; a predictable state is InvalidArgument; the honest flow signs in with the verifier", async () => {
    const client = grpc();
    const weak = await client.initAuth({ environmentId: t.environmentId, providerType: "oidc", auth: { state: "abcdefghijklmnopqrstuv", redirectUrl: APP_PAGE } }).catch((e) => e);
    expect((weak as ConnectError).code).toBe(Code.InvalidArgument);
    const state = randomState();
    const { codeVerifier } = await client.initAuth({ environmentId: t.environmentId, providerType: "oidc", auth: { state, redirectUrl: APP_PAGE } });
    expect(codeVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const landed = await victimOpens(`${app.config.publicUrl}/api/v0/sdk/${t.environmentId}/providers/oidc/login?state=${state}`, victimLogin());
    const code = new URL(landed.url).searchParams.get("code")!;
    const signedIn = await client.oauthSignIn({ environmentId: t.environmentId, providerType: "oidc", proof: { code, state, codeVerifier } });
    expect(signedIn.signIn?.jwt).toBeTruthy();
  });
});

describe("the chat widget's sign-in by state", () => {
  const chatSdk = (jwt?: string) => sdk(jwt).withMiddleware(neutralWords);
  const environmentId = () => t.environmentId;
  /** Sigil's widget page for a state, as a browser opens it (the app's page in the query). */
  const openWidgetPage = (state: string, redirectUrl?: string) =>
    withQuery(chatSdk(), redirectUrl ? { redirectUrl } : {}).getTelegramAuthRaw({ environmentId: environmentId(), state });
  /** What the page's script does once the widget signed: posts the data under the state, reads where to go. */
  async function widgetPosts(state: string, signed: Record<string, string>) {
    const res = await chatSdk().postTelegramAuthRaw({ environmentId: environmentId(), telegramPostRequest: { state, telegramUser: clientChatUser(signed) } });
    return ((await res.raw.json().catch(() => ({}))) as { redirectUrl?: string }).redirectUrl;
  }
  /** The victim's chat account, signed in once with the widget's data directly. */
  async function victimChatAccount() {
    const user = widgetUser();
    const token = new URLSearchParams(signWidget(BOT.token, user)).toString();
    const first = await chatSdk().telegramSignIn({ environmentId: environmentId(), oauthResultRequest: { telegramAuthToken: token } });
    return { user: { ...user, auth_date: user.auth_date + 1 }, userId: first.user.id };
  }

  it("the attacker's state and Sigil's page link: polling and signing in with the state gets no session", async () => {
    const victim = await victimChatAccount();
    const state = randomState();
    // The victim opens the link and signs in with the widget; the page posts the signed data.
    await openWidgetPage(state, APP_PAGE);
    const toApp = await widgetPosts(state, signWidget(BOT.token, victim.user));
    // The attacker polls (status only) and signs in with the state.
    await chatSdk().telegramCheckAuth({ environmentId: environmentId(), oauthResultRequest: { state } });
    const taken = await refused(chatSdk().telegramSignIn({ environmentId: environmentId(), oauthResultRequest: { state } }));
    expect(taken).toMatchObject({ status: 400, body: { code: "chat_auth_code_required" } });
    const guessed = await refused(chatSdk().telegramSignIn({ environmentId: environmentId(), oauthResultRequest: { state, code: randomBytes(32).toString("base64url") } }));
    expect(guessed).toMatchObject({ status: 400, body: { code: "invalid_chat_auth_code" } });
    const sessions = await app.db.one("SELECT count(*)::int AS n FROM sessions WHERE user_id = $1", [victim.userId]);
    expect(sessions.n).toBe(1);
    // The page sends the victim's browser to the app's registered page, which signs the victim in.
    expect(toApp?.startsWith(`${APP_PAGE}?`)).toBe(true);
    const back = new URL(toApp!);
    expect(back.searchParams.get("state")).toBe(state);
    const own = await chatSdk().telegramSignIn({ environmentId: environmentId(), oauthResultRequest: { state, code: back.searchParams.get("code")! } });
    expect(own.user.id).toBe(victim.userId);
  });

  it("the page needs a registered redirect URL and an unpredictable state; a code is bound to its state and used once", async () => {
    const none = await refused(openWidgetPage(randomState()));
    expect(none).toMatchObject({ status: 400, body: { code: "redirect_url_required" } });
    const foreign = await refused(openWidgetPage(randomState(), "https://evil.example/steal"));
    expect(foreign).toMatchObject({ status: 422, body: { code: "redirect_url_not_allowed" } });
    for (const weak of ["aaaaaaaaaaaaaaaaaaaaaa", "abcdefghijklmnopqrstuv"])
      expect(await refused(openWidgetPage(weak, APP_PAGE))).toMatchObject({ status: 400, body: { code: "invalid_state" } });

    const state = randomState();
    await openWidgetPage(state, APP_PAGE);
    const code = new URL((await widgetPosts(state, signWidget(BOT.token, widgetUser())))!).searchParams.get("code")!;
    const otherState = randomState();
    await openWidgetPage(otherState, APP_PAGE);
    const crossed = await refused(chatSdk().telegramSignIn({ environmentId: environmentId(), oauthResultRequest: { state: otherState, code } }));
    expect(crossed).toMatchObject({ status: 400, body: { code: "invalid_chat_auth_code" } });
    // Used up by the failed try.
    const late = await refused(chatSdk().telegramSignIn({ environmentId: environmentId(), oauthResultRequest: { state, code } }));
    expect(late).toMatchObject({ status: 400, body: { code: "invalid_chat_auth_code" } });
  });

  it("over gRPC: ChatSignIn with the attacker's state alone is InvalidArgument; with the page's code it signs in", async () => {
    const client = createClient(SdkChatSignInService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const victim = await victimChatAccount();
    const state = randomState();
    await openWidgetPage(state, APP_PAGE);
    const toApp = await widgetPosts(state, signWidget(BOT.token, victim.user));
    const taken = await client.chatSignIn({ environmentId: environmentId(), result: { state } }).catch((e) => e);
    expect(taken).toBeInstanceOf(ConnectError);
    expect((taken as ConnectError).code).toBe(Code.InvalidArgument);
    const own = await client.chatSignIn({ environmentId: environmentId(), result: { state, code: new URL(toApp!).searchParams.get("code")! } });
    expect(own.signIn?.user?.id).toBe(victim.userId);
  });
});
