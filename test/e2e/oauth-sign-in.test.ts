import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { OauthService } from "../../src/gen/sigil/oauth/v0/oauth_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { Browser } from "./support/browser.js";
import { approveAtProvider } from "./support/browser.js";
import { randomBytes } from "node:crypto";
import { APP_PAGE, browseToApp, kind, registerAppOrigin, signInThroughProvider, startLogin } from "./support/oauth-flow.js";
import { startOAuth2Peer, type OAuth2Peer } from "./support/oauth2-peer.js";
import { startOidcPeer, type OidcPeer } from "./support/oidc-peer.js";

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;
let idp: OidcPeer;
let plain: OAuth2Peer;
let publicHost: string;
let appHost: string;

const callbackUrl = (env: string, type: string) => `${app.config.publicUrl}/api/v0/sdk/${env}/providers/${type}/redirect`;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: `oauth-${Date.now()}@example.com` });
  other = await app.bootstrap({ ownerEmail: `oauth-other-${Date.now()}@example.com` });
  publicHost = new URL(app.config.publicUrl).host;
  appHost = new URL(app.baseUrl).host;
  idp = await startOidcPeer({ redirectUris: [callbackUrl(t.environmentId, "oidc"), callbackUrl(other.environmentId, "oidc")] });
  plain = await startOAuth2Peer({ redirectUri: callbackUrl(t.environmentId, "oauth2") });
  for (const tenant of [t, other]) {
    await registerAppOrigin(app.baseUrl, tenant);
    const res = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/settings/providers`, {
      token: tenant.token,
      body: { provider: "oidc", clientId: idp.clientId, clientSecret: idp.clientSecret, issuer: idp.issuer },
    });
    expect(res.status, res.text).toBe(201);
  }
  const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/settings/providers`, {
    token: t.token,
    body: {
      provider: "oauth2",
      clientId: plain.clientId,
      clientSecret: plain.clientSecret,
      authorizationUrl: `${plain.url}/authorize`,
      tokenUrl: `${plain.url}/token`,
      userinfoUrl: `${plain.url}/user`,
    },
  });
  expect(res.status, res.text).toBe(201);
}, 60_000);
afterAll(async () => {
  await idp?.close();
  await plain?.close();
  await app?.stop();
});

const sdk = (jwt?: string) => sdkFor(app.baseUrl, jwt);
const flow = (login: string, providerType = "oidc", environmentId = t.environmentId) =>
  signInThroughProvider(sdk(), { environmentId, providerType, login, publicHost, appHost });
/** An app's flow up to its page: Sigil's one-time code from the redirect, the state and the verifier. */
async function codeAtApp(login: string, providerType = "oidc") {
  const start = await startLogin(sdk(), { environmentId: t.environmentId, providerType });
  const { appUrl } = await browseToApp(start.url, { login, publicHost, appHost });
  return { code: appUrl!.searchParams.get("code")!, state: start.state, codeVerifier: start.codeVerifier };
}
/** The provider link of the authorize page (a browser start: no verifier). */
async function authorizeLink(redirectUri?: string, providerType = "oidc") {
  const html = await sdk().oauthAuthorizeHtml({ environmentId: t.environmentId, providerType: kind(providerType), ...(redirectUri ? { redirectUri } : {}) });
  return /href="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, "&");
}

describe("OpenID Connect sign-in through the whole browser flow", () => {
  it("loginUrl, the provider's login and consent, the callback's redirect to the app, signIn with the verifier, sessionCheck", async () => {
    const login = `alice-${Date.now()}`;
    const { signIn, state, code, codeVerifier, page } = await flow(login);
    expect(page.status).toBe(303);
    expect(page.url.startsWith(`${APP_PAGE}?`)).toBe(true);
    expect(page.body).toContain("Signed in");
    expect(signIn.jwt).toBeTruthy();
    expect(signIn.user.newUser).toBe(true);
    expect(signIn.user.email).toBe(`${login}@example.test`);
    const account = signIn.user.verifiedCredentials?.find((c) => c.format === "oauth");
    expect(account).toMatchObject({ oauthProvider: "oidc", oauthAccountId: login, oauthUsername: login, oauthDisplayName: `Test ${login}` });
    await sdk(signIn.jwt!).sessionCheck({ environmentId: t.environmentId });

    // The same account again: the same user, not a new one; the state and code were single use.
    const again = await flow(login);
    expect(again.signIn.user.id).toBe(signIn.user.id);
    expect(again.signIn.user.newUser).toBe(false);
    // oauthResult reports the status only: the code went to the app's page.
    const result = await sdk().oauthResult({ environmentId: t.environmentId, providerType: kind("oidc"), oauthResultRequest: { state } });
    expect(result.status).toBe("completed");
    expect(result.code).toBeFalsy();
    const replay = await refused(sdk().oauthSignIn({ environmentId: t.environmentId, providerType: kind("oidc"), oauthRequest: { code, state, codeVerifier } }));
    expect(replay).toMatchObject({ status: 400, body: { code: "invalid_oauth_code" } });

    // Audit rows and events of the pipeline: the user, the OAuth account (a verified credential), the sessions.
    const audit = await app.db.any("SELECT action, resource_id FROM audit_log WHERE environment_id = $1", [t.environmentId]);
    expect(audit).toEqual(expect.arrayContaining([{ action: "verified_credential.created", resource_id: account!.id }]));
    const events = await app.db.any("SELECT event_name FROM events WHERE environment_id = $1", [t.environmentId]);
    expect(events.map((e: { event_name: string }) => e.event_name)).toEqual(
      expect.arrayContaining(["user.created", "verified_credential.created", "user.session.created"]),
    );
  });

  it("keeps the provider's tokens sealed; only the account's own user reads the access token", async () => {
    const { signIn } = await flow(`bob-${Date.now()}`);
    const accountId = signIn.user.verifiedCredentials!.find((c) => c.format === "oauth")!.id;
    const row = await app.db.one("SELECT * FROM oauth_account_tokens WHERE credential_id = $1", [accountId]);
    expect(row.access_token_sealed).not.toMatch(/^[A-Za-z0-9_-]{20,}$/); // a sealed envelope, not the token
    const { accessToken } = await sdk(signIn.jwt!).getEndUserOauthAccessToken({ environmentId: t.environmentId, oauthAccountId: accountId });
    expect(row.access_token_sealed).not.toContain(accessToken);
    // The token works at the provider's userinfo endpoint.
    const me = await fetch(`${idp.issuer}/me`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(me.status).toBe(200);

    const carol = await flow(`carol-${Date.now()}`);
    const foreign = await refused(sdk(carol.signIn.jwt!).getEndUserOauthAccessToken({ environmentId: t.environmentId, oauthAccountId: accountId }));
    expect(foreign.status).toBe(404);
  });

  it("oauthVerify links the account to the signed-in user; another user's account answers 422", async () => {
    const first = await flow(`dave-${Date.now()}`, "oauth2");
    expect(first.signIn.user.verifiedCredentials?.find((c) => c.format === "oauth")).toMatchObject({ oauthProvider: "oauth2", oauthAccountId: "4242" });
    // Another account of the oidc provider, linked to the plain OAuth 2 user.
    const login = `dave-oidc-${Date.now()}`;
    const linked = await sdk(first.signIn.jwt!).oauthVerify({ environmentId: t.environmentId, providerType: kind("oidc"), oauthRequest: await codeAtApp(login) });
    expect(linked.user.id).toBe(first.signIn.user.id);
    expect(linked.user.verifiedCredentials?.filter((c) => c.format === "oauth").map((c) => c.oauthProvider).sort()).toEqual(["oauth2", "oidc"]);

    // The same oidc account proven again by someone else: it belongs to dave now.
    const eve = await flow(`eve-${Date.now()}`);
    const again = await flow(login).catch(() => null);
    expect(again?.signIn.user.id).toBe(first.signIn.user.id);
    const taken = await refused(sdk(eve.signIn.jwt!).oauthVerify({ environmentId: t.environmentId, providerType: kind("oidc"), oauthRequest: await codeAtApp(login) }));
    expect(taken).toMatchObject({ status: 422, body: { code: "credential_owned_by_another_user" } });
  });

  it("initAuth with the app's redirect URL: login?state= redirects to the provider, the callback back to the app", async () => {
    await call(app.baseUrl, "POST", `/environments/${t.environmentId}/origins`, { token: t.token, body: { origin: "https://app.acme.example" } });
    const state = randomBytes(16).toString("base64url");
    const init = await sdk().initAuthRaw({ environmentId: t.environmentId, providerType: kind("oidc"), oauthInitAuthRequest: { state, redirectUrl: "https://app.acme.example/after?x=1" } });
    const { codeVerifier } = (await init.raw.json()) as { codeVerifier: string };
    const reused = await refused(sdk().initAuth({ environmentId: t.environmentId, providerType: kind("oidc"), oauthInitAuthRequest: { state, redirectUrl: APP_PAGE } }));
    expect(reused).toMatchObject({ status: 409, body: { code: "state_in_use" } });
    expect((await sdk().oauthResult({ environmentId: t.environmentId, providerType: kind("oidc"), oauthResultRequest: { state } })).status).toBe("pending");

    const login = await fetch(`${app.baseUrl}/api/v0/sdk/${t.environmentId}/providers/oidc/login?state=${state}`, { redirect: "manual" });
    expect(login.status).toBe(303);
    const authUrl = login.headers.get("location")!;
    expect(new URL(authUrl).origin).toBe(idp.issuer);
    expect(new URL(authUrl).searchParams.get("state")).toBe(state);

    const browser = new Browser({ [publicHost]: appHost });
    const atCallback = await approveAtProvider(browser, authUrl, `frank-${Date.now()}`, publicHost);
    const back = await browser.open(atCallback.url, { stopAt: (u) => u.host === "app.acme.example" });
    expect(back.status).toBe(303);
    const appUrl = new URL(back.url);
    expect(appUrl.origin + appUrl.pathname).toBe("https://app.acme.example/after");
    expect(appUrl.searchParams.get("x")).toBe("1");
    expect(appUrl.searchParams.get("state")).toBe(state);
    const code = appUrl.searchParams.get("code")!;
    const signIn = await sdk().oauthSignIn({ environmentId: t.environmentId, providerType: kind("oidc"), oauthRequest: { code, state, codeVerifier } });
    expect(signIn.jwt).toBeTruthy();
  });

  it("the authorize page and oauthLogin join the same flow (one state record, one callback, one result)", async () => {
    // A browser start: the code reaches the app's page only, and is redeemed without a verifier.
    const authUrl = await authorizeLink(APP_PAGE);
    const state = new URL(authUrl).searchParams.get("state")!;
    const { appUrl } = await browseToApp(authUrl, { login: `gina-${Date.now()}`, publicHost, appHost });
    expect(appUrl?.searchParams.get("state")).toBe(state);
    const r = await sdk().oauthResult({ environmentId: t.environmentId, providerType: kind("oidc"), oauthResultRequest: { state } });
    expect(r).toMatchObject({ status: "completed" });
    expect(r.code).toBeFalsy();
    expect((await sdk().oauthSignIn({ environmentId: t.environmentId, providerType: kind("oidc"), oauthRequest: { code: appUrl!.searchParams.get("code")!, state } })).jwt).toBeTruthy();
    // Without a redirect target the page still starts the flow, but its sign-in goes nowhere.
    const bare = await authorizeLink();
    const { page: done } = await browseToApp(bare, { login: `gina-${Date.now()}`, publicHost, appHost });
    expect([done.status, done.body.includes("named no page of the app")]).toEqual([200, true]);
    expect(await sdk().oauthResult({ environmentId: t.environmentId, providerType: kind("oidc"), oauthResultRequest: { state: new URL(bare).searchParams.get("state")! } })).toMatchObject({ status: "completed" });
    // oauthLogin through the published client: 303 to the provider's authorization endpoint, a new state.
    const login = await sdk()
      .oauthLoginRaw({ environmentId: t.environmentId, providerType: kind("oidc") }, { redirect: "manual" })
      .then(() => null, (res: Response) => res);
    expect(login?.status).toBe(303);
    const to = new URL(login!.headers.get("location")!);
    expect(to.origin).toBe(idp.issuer);
    expect(to.searchParams.get("code_challenge_method")).toBe("S256");
    expect(to.searchParams.get("nonce")).toBeTruthy();
    expect(to.searchParams.get("state")).not.toBe(state);
  });

  it("the callback through the published client (oauthRedirectCode) and over gRPC", async () => {
    // Plain OAuth 2 (no ID token, userinfo endpoint): the published client delivers the callback; its
    // answer is the 303 to the app's page (read without following it).
    const grpc = createClient(OauthService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const started = await grpc.oauthLoginUrl({ environmentId: t.environmentId, providerType: "oauth2", redirectUrl: APP_PAGE });
    const { url } = started;
    const state = new URL(url).searchParams.get("state")!;
    const browser = new Browser({ [publicHost]: appHost });
    const at = new URL((await approveAtProvider(browser, url, "unused", publicHost)).url);
    const answer = await sdk()
      .oauthRedirectCodeRaw({ environmentId: t.environmentId, providerType: kind("oauth2"), code: at.searchParams.get("code")!, state }, { redirect: "manual" })
      .then(() => null, (res: Response) => res);
    expect(answer?.status).toBe(303);
    expect(await answer!.text()).toContain("Signed in");
    const toApp = new URL(answer!.headers.get("location")!);
    const r = await grpc.oauthResult({ environmentId: t.environmentId, providerType: "oauth2", result: { state } });
    expect([r.status, r.code]).toEqual(["completed", ""]);
    const signedIn = await grpc.oauthSignIn({ environmentId: t.environmentId, providerType: "oauth2", proof: { code: toApp.searchParams.get("code")!, state, codeVerifier: started.codeVerifier } });
    expect(signedIn.signIn?.user?.verifiedCredentials.find((c) => c.format === "oauth")?.oauthAccountId).toBe("4242");

    // An OpenID provider that sends its issuer (RFC 9207): a callback without it is refused (mix-up defence).
    const oidcStart = await authorizeLink();
    const oidcState = new URL(oidcStart).searchParams.get("state")!;
    const b2 = new Browser({ [publicHost]: appHost });
    const at2 = new URL((await approveAtProvider(b2, oidcStart, `hank-${Date.now()}`, publicHost)).url);
    expect(at2.searchParams.get("iss")).toBe(idp.issuer);
    const noIss = await refused(sdk().oauthRedirectCode({ environmentId: t.environmentId, providerType: kind("oidc"), code: at2.searchParams.get("code")!, state: oidcState }));
    expect(noIss).toMatchObject({ status: 400, body: { code: "oauth_callback_refused" } });
    expect((await sdk().oauthResult({ environmentId: t.environmentId, providerType: kind("oidc"), oauthResultRequest: { state: oidcState } })).error).toBeTruthy();
  });
});

describe("redirect targets", () => {
  it("refuses an open redirect and accepts deeplink URLs", async () => {
    for (const redirectUrl of ["https://evil.example/steal", "javascript:alert(1)", "http://app.acme.example.evil.example/", "//evil.example"]) {
      const r = await refused(sdk().initAuth({ environmentId: t.environmentId, providerType: kind("oidc"), oauthInitAuthRequest: { state: randomBytes(16).toString("base64url"), redirectUrl } }));
      expect(r.status, redirectUrl).toBeGreaterThanOrEqual(400);
      expect(r.status, redirectUrl).toBeLessThan(500);
      const viaUrl = await fetch(`${app.baseUrl}/api/v0/sdk/${t.environmentId}/providers/oidc/loginUrl?redirectUrl=${encodeURIComponent(redirectUrl)}`);
      expect(viaUrl.status, redirectUrl).toBe(422);
      expect((await viaUrl.json()).code).toBe("redirect_url_not_allowed");
    }
    const dl = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/deeplinkUrls`, { token: t.token, body: { url: "myapp://oauth/callback" } });
    expect([200, 201]).toContain(dl.status);
    await sdk().initAuth({ environmentId: t.environmentId, providerType: kind("oidc"), oauthInitAuthRequest: { state: randomBytes(16).toString("base64url"), redirectUrl: "myapp://oauth/callback" } });
  });
});
