/**
 * The exchange protocol Sigil speaks (proto/sigil/exchange_accounts/v0/sdk_exchange_accounts_service.proto
 * documents it), as a port; implemented in src/adapters/exchange-api.ts.
 */

/** Where an exchange is and what Sigil signs its calls with (opened from the connection's sealed credentials). */
export interface ExchangeTarget {
  baseUrl: string;
  /** A tenant wrote the URL: every connection passes the destination policy of this environment's kind. */
  environmentName: "live" | "sandbox";
  apiKey: string;
  apiSecret: string;
  passphrase: string | null;
}

/** What the exchange answered: its status and JSON body (null when it sent none or no JSON). */
export interface ExchangeAnswer {
  status: number;
  body: unknown;
}

export interface ExchangeCall {
  method: "GET" | "POST";
  /** The protocol path, e.g. /v1/accounts. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** The user's exchange access token, for calls on a user's behalf. */
  bearer?: string;
  /** More headers of the protocol (Idempotency-Key, X-Exchange-2FA). */
  headers?: Record<string, string>;
}

/**
 * Every method answers what the exchange said (2xx or 4xx), or throws exchange_unavailable (503 with
 * Retry-After: the exchange failed, timed out, answered 5xx / 429 or more than Sigil reads) or
 * not_configured (422: the destination policy refuses the URL). Never a made-up answer.
 */
export interface ExchangeApi {
  /** A signed call of the protocol (X-Sigil-Key / -Timestamp / -Passphrase / -Signature). */
  call(target: ExchangeTarget, call: ExchangeCall): Promise<ExchangeAnswer>;
  /** POST {base}/oauth/token with the form, client authentication by HTTP Basic (api key and secret). */
  token(target: ExchangeTarget, form: Record<string, string>): Promise<ExchangeAnswer>;
  /** The authorization URL of the exchange's OAuth server with these parameters. */
  authorizationUrl(target: ExchangeTarget, params: Record<string, string>): string;
  /** A buy URL whose parameters are signed with the exchange's secret (with key and timestamp). */
  signedBuyUrl(target: ExchangeTarget, params: Record<string, string>): string;
}
