import type { Middleware } from "@dynamic-labs/sdk-api";

/**
 * The published client names some SDK paths and request fields after vendors (the chat platform, the
 * decentralized-social network); the contract (docs/spec/service-api.md, naming convention) says the
 * neutral word instead. A client app written for the vendor layout reaches Sigil with this one request
 * middleware: the same client, its paths and field names translated.
 */
const PATH_WORDS: [RegExp, string][] = [
  [/\/telegram\//, "/chat/"],
  [/\/checkTelegramAuth$/, "/checkChatAuth"],
  [/\/farcaster\//, "/decentralizedSocial/"],
  // The form_post OAuth callback of the partner provider (the client names its vendor).
  [/\/providers\/apple\/redirect$/, "/providers/partner/redirect"],
  // The card on-ramp's payment (the client names the card payment vendor).
  [/\/onramps\/cryptoDotCom\/payment$/, "/onramps/cardOnramp/payment"],
  // The exchange on-ramp and the exchange's OAuth redirect (the client names the exchange vendor).
  [/\/onramps\/coinbase\//, "/onramps/exchange/"],
  [/\/providers\/cbOauthRedirectUrl$/, "/providers/exchangeOauthRedirectUrl"],
];
const FIELD_WORDS: Record<string, string> = { telegramUser: "chatUser", telegramAuthToken: "chatAuthToken" };

/** A client path (template or filled) in the contract's words. */
export function neutralPath(path: string): string {
  return PATH_WORDS.reduce((p, [vendor, neutral]) => p.replace(vendor, neutral), path);
}

function neutralBody(body: unknown): unknown {
  if (typeof body !== "string") return body;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return body;
  }
  if (!json || typeof json !== "object" || Array.isArray(json)) return body;
  return JSON.stringify(Object.fromEntries(Object.entries(json).map(([k, v]) => [FIELD_WORDS[k] ?? k, v])));
}

export const neutralWords: Middleware = {
  pre: async ({ url, init }) => {
    const u = new URL(url);
    u.pathname = neutralPath(u.pathname);
    return { url: u.toString(), init: { ...init, body: neutralBody(init.body) as BodyInit } };
  },
};
