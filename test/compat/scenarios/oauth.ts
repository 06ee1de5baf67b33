import { randomBytes } from "node:crypto";
import { SDKApi } from "@dynamic-labs/sdk-api";
import { Browser } from "../../e2e/support/browser.js";
import { approveAtProvider } from "../../e2e/support/browser.js";
import { browseToApp, kind, startLogin, withQuery } from "../../e2e/support/oauth-flow.js";
import { startOAuth2Peer, type OAuth2Peer } from "../../e2e/support/oauth2-peer.js";
import { startOidcPeer, type OidcPeer } from "../../e2e/support/oidc-peer.js";
import { neutralWords } from "../../support/neutral-words.js";
import type { CompatContext, Scenarios } from "../harness.js";

/**
 * SDKApi, OAuth 2 / OpenID Connect sign-in (run in this order) against real providers on loopback: an
 * OpenID Provider (oidc-provider) as the environment's oidc and partner (form_post) providers, and a plain
 * OAuth 2 server as its oauth2 provider. The provider's part (login, consent) runs in the test browser.
 * Sigil's one-time code reaches only the app's registered page (APP_PAGE), and a flow an API call started
 * redeems it only with that call's codeVerifier (read from the raw answers).
 */
const APP_ORIGIN = "https://app.compat.example";
const APP_PAGE = `${APP_ORIGIN}/done`;
interface OauthState {
  idp: OidcPeer;
  partnerIdp: OidcPeer;
  plain: OAuth2Peer;
  hosts: Record<string, string>;
  publicHost: string;
  jwt: string;
}

const sdk = (ctx: CompatContext, jwt?: string) => (jwt ? ctx.api(SDKApi, jwt) : ctx.api(SDKApi)).withMiddleware(neutralWords);
const env = (ctx: CompatContext) => ctx.tenant.environmentId;
const s = (ctx: CompatContext) => ctx.state as unknown as OauthState;

/** The provider link of the authorize page (a browser start without a redirect target). */
async function authorizeLink(ctx: CompatContext, providerType: string) {
  const html = await sdk(ctx).oauthAuthorizeHtml({ environmentId: env(ctx), providerType: kind(providerType) });
  return /href="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, "&");
}

/**
 * A browser-started authorization (no redirect target: the callback answers its own page) up to the
 * provider's redirect to the callback (not opened): its URL and state.
 */
async function toCallback(ctx: CompatContext, providerType: string) {
  const url = await authorizeLink(ctx, providerType);
  const browser = new Browser(s(ctx).hosts);
  const page = await approveAtProvider(browser, url, `compat-${Date.now()}`, s(ctx).publicHost);
  return { browser, page, state: new URL(url).searchParams.get("state")! };
}

/** A finished authorization an app started: Sigil's one-time code from its page, the state, the verifier. */
async function provenCode(ctx: CompatContext, providerType = "oidc") {
  const start = await startLogin(sdk(ctx), { environmentId: env(ctx), providerType, redirectUrl: APP_PAGE });
  const { appUrl } = await browseToApp(start.url, { login: `compat-${Date.now()}`, publicHost: s(ctx).publicHost, appHost: s(ctx).hosts[s(ctx).publicHost]!, appOrigin: APP_ORIGIN });
  return { code: appUrl!.searchParams.get("code")!, state: start.state, codeVerifier: start.codeVerifier };
}

const preflight = (op: keyof SDKApi, extra: Record<string, string> = {}) => (ctx: CompatContext) =>
  (sdk(ctx)[op] as (r: unknown) => Promise<unknown>)({ environmentId: env(ctx), providerType: kind("oidc"), ...extra });

export const oauthApi: Scenarios = {
  "SDKApi.initAuth": async (ctx) => {
    const { app, rest } = ctx;
    const callback = (type: string) => `${app.config.publicUrl}/api/v0/sdk/${env(ctx)}/providers/${type}/redirect`;
    const idp = await startOidcPeer({ redirectUris: [callback("oidc")] });
    // Like the partner's real issuer, this one does not announce RFC 9207's iss (the client's form has none).
    const partnerIdp = await startOidcPeer({ redirectUris: [callback("partner")], clientId: "partner-client", issParameter: false });
    const plain = await startOAuth2Peer({ redirectUri: callback("oauth2") });
    const publicHost = new URL(app.config.publicUrl).host;
    Object.assign(ctx.state, { idp, partnerIdp, plain, publicHost, hosts: { [publicHost]: new URL(app.baseUrl).host } });
    await rest("POST", `/environments/${env(ctx)}/settings/providers`, { provider: "oidc", clientId: idp.clientId, clientSecret: idp.clientSecret, issuer: idp.issuer });
    await rest("POST", `/environments/${env(ctx)}/settings/providers`, {
      provider: "partner",
      clientId: partnerIdp.clientId,
      clientSecret: partnerIdp.clientSecret,
      issuer: partnerIdp.issuer,
    });
    await rest("POST", `/environments/${env(ctx)}/settings/providers`, {
      provider: "oauth2",
      clientId: plain.clientId,
      clientSecret: plain.clientSecret,
      authorizationUrl: `${plain.url}/authorize`,
      tokenUrl: `${plain.url}/token`,
      userinfoUrl: `${plain.url}/user`,
    });
    await rest("POST", `/environments/${env(ctx)}/origins`, { origin: APP_ORIGIN });
    return sdk(ctx).initAuth({
      environmentId: env(ctx),
      providerType: kind("oidc"),
      oauthInitAuthRequest: { state: randomBytes(16).toString("base64url"), redirectUrl: APP_PAGE },
    });
  },
  // The app's redirect URL rides in the query (the typed request has no place for it).
  "SDKApi.oauthLoginUrl": (ctx) => withQuery(sdk(ctx), { redirectUrl: APP_PAGE }).oauthLoginUrl({ environmentId: env(ctx), providerType: kind("oidc") }),
  // Followed by the client's fetch: Sigil's 303, then the plain provider's consent page.
  "SDKApi.oauthLogin": (ctx) => sdk(ctx).oauthLogin({ environmentId: env(ctx), providerType: kind("oauth2") }),
  "SDKApi.oauthRedirectCode": async (ctx) => {
    const { page, state } = await toCallback(ctx, "oauth2");
    const code = new URL(page.url).searchParams.get("code")!;
    return sdk(ctx).oauthRedirectCode({ environmentId: env(ctx), providerType: kind("oauth2"), code, state });
  },
  "SDKApi.oauthRedirectApple": async (ctx) => {
    // The partner provider answers by form_post: the browser stops at its auto-submitting form, whose
    // fields the client posts to the callback.
    const url = await authorizeLink(ctx, "partner");
    const browser = new Browser({});
    const form = await approveAtProvider(browser, url, `compat-partner-${Date.now()}`, s(ctx).publicHost);
    const body = form.body;
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(body)?.[1];
    return sdk(ctx).oauthRedirectApple({ environmentId: env(ctx), code: field("code"), state: field("state") });
  },
  "SDKApi.oauthResult": async (ctx) => {
    const { browser, page, state } = await toCallback(ctx, "oidc");
    await browser.open(page.url);
    return sdk(ctx).oauthResult({ environmentId: env(ctx), providerType: kind("oidc"), oauthResultRequest: { state } });
  },
  "SDKApi.oauthSignIn": async (ctx) => {
    const r = await sdk(ctx).oauthSignIn({ environmentId: env(ctx), providerType: kind("oauth2"), oauthRequest: await provenCode(ctx, "oauth2") });
    s(ctx).jwt = r.jwt!;
    return r;
  },
  "SDKApi.oauthVerify": async (ctx) => {
    return sdk(ctx, s(ctx).jwt).oauthVerify({ environmentId: env(ctx), providerType: kind("oidc"), oauthRequest: await provenCode(ctx, "oidc") });
  },
  "SDKApi.getEndUserOauthAccessToken": async (ctx) => {
    const user = await sdk(ctx, s(ctx).jwt).getAuthenticatedUser({ environmentId: env(ctx) });
    const account = user.verifiedCredentials!.find((c) => c.format === "oauth")!;
    return sdk(ctx, s(ctx).jwt).getEndUserOauthAccessToken({ environmentId: env(ctx), oauthAccountId: account.id });
  },
  "SDKApi.initAuthOptions": preflight("initAuthOptions"),
  "SDKApi.oauthLoginUrlOptions": preflight("oauthLoginUrlOptions"),
  "SDKApi.oauthLoginOptions": preflight("oauthLoginOptions"),
  "SDKApi.oauthRedirectOptions": preflight("oauthRedirectOptions"),
  "SDKApi.oauthRedirectAppleOptions": preflight("oauthRedirectAppleOptions"),
  "SDKApi.oauthResultOptions": preflight("oauthResultOptions"),
  "SDKApi.oauthSignInOptions": preflight("oauthSignInOptions"),
  "SDKApi.oauthVerifyOptions": preflight("oauthVerifyOptions"),
  "SDKApi.getEndUserOauthAccessTokenOptions": async (ctx) => {
    await sdk(ctx).getEndUserOauthAccessTokenOptions({ environmentId: env(ctx), oauthAccountId: "00000000-0000-4000-8000-000000000000" });
    await Promise.all([s(ctx).idp.close(), s(ctx).partnerIdp.close(), s(ctx).plain.close()]);
  },
};
