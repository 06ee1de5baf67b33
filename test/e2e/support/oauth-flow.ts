import type { SDKApi } from "@dynamic-labs/sdk-api";
import { call } from "../../support/http.js";
import { approveAtProvider, Browser } from "./browser.js";

/** The published client's provider type (its enum names vendors; Sigil's kinds are neutral). */
export const kind = (k: string) => k as never;

/** The app whose page the OAuth tests' flows return to (register it with registerAppOrigin). */
export const APP_ORIGIN = "https://app.oauth-flow.example";
export const APP_PAGE = `${APP_ORIGIN}/after-sign-in`;

/** Makes APP_ORIGIN one of the environment's origins, so APP_PAGE is a registered redirect target. */
export async function registerAppOrigin(baseUrl: string, tenant: { environmentId: string; token: string }) {
  const res = await call(baseUrl, "POST", `/environments/${tenant.environmentId}/origins`, { token: tenant.token, body: { origin: APP_ORIGIN } });
  if (res.status >= 300 && res.status !== 409) throw new Error(`origin: ${res.status} ${res.text}`);
}

/** The client with query parameters its typed request has no place for (loginUrl's redirectUrl). */
export const withQuery = (sdk: SDKApi, params: Record<string, string>) =>
  sdk.withMiddleware({
    pre: async (ctx) => {
      const url = new URL(ctx.url);
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      return { url: url.href, init: ctx.init };
    },
  });

/**
 * loginUrl with the app's redirect URL, as an app starts a flow: the provider's URL, its state, and the
 * flow's verifier (read from the raw answer: the typed one has no place for it).
 */
export async function startLogin(sdk: SDKApi, opts: { environmentId: string; providerType: string; redirectUrl?: string }) {
  const res = await withQuery(sdk, { redirectUrl: opts.redirectUrl ?? APP_PAGE }).oauthLoginUrlRaw({ environmentId: opts.environmentId, providerType: kind(opts.providerType) });
  const { url, codeVerifier } = (await res.raw.json()) as { url: string; codeVerifier: string };
  return { url, codeVerifier, state: new URL(url).searchParams.get("state")! };
}

/**
 * A person's browser from the provider's link to the app's page: login and consent at the provider, then
 * Sigil's callback (query or form_post), stopping where it sends the browser on the app's origin.
 */
export async function browseToApp(url: string, opts: { login: string; publicHost: string; appHost: string; appOrigin?: string }) {
  const browser = new Browser({ [opts.publicHost]: opts.appHost });
  const atApp = (u: URL) => u.origin === (opts.appOrigin ?? APP_ORIGIN);
  let page = await approveAtProvider(browser, url, opts.login, opts.publicHost);
  if (page.status >= 300) page = await browser.open(page.url, { stopAt: atApp });
  else if (/<form/i.test(page.body)) page = await browser.submit(page, {}, { stopAt: atApp });
  return { page, browser, appUrl: atApp(new URL(page.url)) ? new URL(page.url) : null };
}

/**
 * The whole browser flow as an SDK app runs it: loginUrl with its redirect URL, the provider's login and
 * consent, the callback's redirect to the app's page with state and Sigil's one-time code, then
 * oauthSignIn with the code and the flow's verifier. The environment needs APP_ORIGIN (registerAppOrigin).
 */
export async function signInThroughProvider(
  sdk: SDKApi,
  opts: { environmentId: string; providerType: string; login: string; publicHost: string; appHost: string },
) {
  const { url, state, codeVerifier } = await startLogin(sdk, opts);
  const { page, browser, appUrl } = await browseToApp(url, opts);
  const code = appUrl?.searchParams.get("code");
  if (!code) throw new Error(`no code: ${page.status} ${page.url} ${page.body.slice(0, 200)}`);
  const signIn = await sdk.oauthSignIn({ environmentId: opts.environmentId, providerType: kind(opts.providerType), oauthRequest: { code, state, codeVerifier } });
  return { state, code, codeVerifier, signIn, page, browser };
}
