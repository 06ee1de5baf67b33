import { unprocessable } from "../../errors.js";
import { isDeeplinkUrl } from "../../db/repositories/oauth.js";
import type { Deps } from "../deps.js";
import { normalizeDeeplinkUrl } from "../deeplink-urls/deeplink-url.js";
import { originPatterns } from "../origins/service.js";
import { originAllowedBy } from "../origins/origin.js";

const refused = () =>
  unprocessable(
    "redirect_url_not_allowed",
    "redirectUrl must be on one of the environment's origins or one of its deeplink URLs",
    { field: "redirectUrl" },
  );

/**
 * Where the browser may be sent back after the provider's callback: never an open redirect. Allowed are
 * the environment's origins (a web app's own pages) and its deeplink URLs (the client's home for exact
 * redirect targets, compared without the query, which the app may vary). Answers the URL to use, normalized.
 */
export async function checkRedirectTarget(deps: Deps, environmentId: string, input: string): Promise<string> {
  const parsed = normalizeDeeplinkUrl(input);
  if (!parsed.ok) throw refused();
  const url = parsed.url;
  const withoutQuery = url.split("?")[0]!;
  if (/^https?:/.test(url) && originAllowedBy(await originPatterns(deps, environmentId), new URL(url).origin)) return url;
  if ((await isDeeplinkUrl(deps.db, environmentId, url)) || (await isDeeplinkUrl(deps.db, environmentId, withoutQuery))) return url;
  throw refused();
}

/**
 * A redirect target with the outcome of a sign-in added to its query (the app's own parameters kept, ours
 * replacing any of the same name). The URL may be a deeplink (a custom scheme), so it is not parsed as a URL.
 */
export function withQuery(target: string, params: Record<string, string>): string {
  const [base, query = ""] = target.split(/\?(.*)/s);
  const q = new URLSearchParams(query);
  for (const [k, v] of Object.entries(params)) q.set(k, v);
  return `${base}?${q.toString()}`;
}
