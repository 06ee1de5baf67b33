import type { SDKApi } from "@dynamic-labs/sdk-api";
import { approveAtProvider, Browser } from "./browser.js";

/** The published client's provider type (its enum names vendors; Sigil's kinds are neutral). */
export const kind = (k: string) => k as never;

/**
 * The whole browser flow as an SDK app runs it: loginUrl, the provider's login and consent, the callback,
 * the result polled with the state, then oauthSignIn with the one-time code.
 */
export async function signInThroughProvider(
  sdk: SDKApi,
  opts: { environmentId: string; providerType: string; login: string; publicHost: string; appHost: string },
) {
  const { url } = await sdk.oauthLoginUrl({ environmentId: opts.environmentId, providerType: kind(opts.providerType) });
  const state = new URL(url).searchParams.get("state")!;
  const browser = new Browser({ [opts.publicHost]: opts.appHost });
  let page = await approveAtProvider(browser, url, opts.login, opts.publicHost);
  if (page.status >= 300) page = await browser.open(page.url);
  else if (/<form/i.test(page.body)) page = await browser.submit(page);
  const result = await sdk.oauthResult({ environmentId: opts.environmentId, providerType: kind(opts.providerType), oauthResultRequest: { state } });
  if (!result.code) throw new Error(`no code: ${JSON.stringify(result)} (${page.status} ${page.body.slice(0, 200)})`);
  const signIn = await sdk.oauthSignIn({
    environmentId: opts.environmentId,
    providerType: kind(opts.providerType),
    oauthRequest: { code: result.code, state },
  });
  return { state, code: result.code, signIn, page, browser };
}
