import { createHmac } from "node:crypto";
import type { WebhookSettings } from "../config.js";
import { exchangeNotConfigured, exchangeUnavailable } from "../domain/exchange-accounts/errors.js";
import type { ExchangeAnswer, ExchangeApi, ExchangeCall, ExchangeTarget } from "../domain/exchange-accounts/port.js";
import { destinationRules } from "../net/destination-policy.js";
import { DESTINATION_REFUSED, pinnedClient } from "../net/pinned-fetch.js";

/** Deadline of one call to an exchange: a user waits on it. */
const EXCHANGE_TIMEOUT_MS = 10_000;
/** The most of an answer Sigil reads: account lists and transaction pages are small. */
const EXCHANGE_MAX_RESPONSE_BYTES = 1024 * 1024;
/** Bounds on an exchange's own Retry-After, so a client is never told to wait for hours or not at all. */
const RETRY_AFTER_BOUNDS = [1, 300] as const;

/** The protocol's request signature: base64 HMAC-SHA256 under the api secret of timestamp + METHOD + path?query + body. */
function requestSignature(secret: string, timestamp: string, method: string, pathWithQuery: string, body: string): string {
  return createHmac("sha256", secret).update(`${timestamp}${method}${pathWithQuery}${body}`).digest("base64");
}

/** A query in the protocol's canonical form: sorted by name, each name and value percent-encoded. */
function canonicalQuery(params: Record<string, string>): string {
  return Object.keys(params)
    .sort()
    .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(params[k]!)}`)
    .join("&");
}

const joinUrl = (base: string, path: string) => `${base.replace(/\/+$/, "")}${path}`;

function retryAfterOf(header: string | null): number | undefined {
  const n = Number(header);
  return Number.isFinite(n) && n > 0 ? Math.min(Math.max(Math.ceil(n), RETRY_AFTER_BOUNDS[0]), RETRY_AFTER_BOUNDS[1]) : undefined;
}

/**
 * The exchange protocol over HTTP. The base URL is a tenant's: every connection passes the service's
 * destination policy as webhooks do (pinned to the checked address; live environments need https), every
 * call has a deadline and a response-size bound, and redirects are never followed. A failure, timeout, 5xx,
 * 429 or oversized answer is exchange_unavailable (503, the exchange's Retry-After when it gave one).
 */
export function createExchangeApi(webhooks: WebhookSettings, opts: { timeoutMs?: number; maxResponseBytes?: number } = {}): ExchangeApi {
  const timeoutMs = opts.timeoutMs ?? EXCHANGE_TIMEOUT_MS;
  const maxBytes = opts.maxResponseBytes ?? EXCHANGE_MAX_RESPONSE_BYTES;

  async function send(target: ExchangeTarget, method: "GET" | "POST", url: string, headers: Record<string, string>, body?: string): Promise<ExchangeAnswer> {
    const parsed = new URL(url);
    if (target.environmentName === "live" && parsed.protocol !== "https:") throw exchangeNotConfigured("a live environment's exchange URL must use https", { host: parsed.host });
    const client = pinnedClient(url, destinationRules(webhooks, target.environmentName));
    const deadline = AbortSignal.timeout(timeoutMs);
    let res;
    try {
      const init = { headers: { accept: "application/json", ...headers }, signal: deadline, maxBytes: maxBytes + 1 };
      res = method === "POST" ? await client.post({ ...init, body: body ?? "" }) : await client.get(init);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === DESTINATION_REFUSED) throw exchangeNotConfigured(`the exchange URL is refused: ${(err as Error).message}`, { host: parsed.host });
      throw exchangeUnavailable(deadline.aborted ? `no answer within ${timeoutMs} ms` : "the connection failed");
    } finally {
      void client.close();
    }
    if (res.status >= 500 || res.status === 429) throw exchangeUnavailable(`HTTP ${res.status}`, retryAfterOf(res.retryAfter));
    if (res.excerpt === null) throw exchangeUnavailable("the answer could not be read");
    if (Buffer.byteLength(res.excerpt) > maxBytes) throw exchangeUnavailable(`the answer is larger than ${maxBytes} bytes`);
    if (res.status >= 300 && res.status < 400) throw exchangeUnavailable(`an unexpected redirect (HTTP ${res.status})`);
    let json: unknown = null;
    try {
      json = res.excerpt ? JSON.parse(res.excerpt) : null;
    } catch {
      if (res.status < 300) throw exchangeUnavailable("the answer is not JSON");
    }
    return { status: res.status, body: json };
  }

  return {
    call(target: ExchangeTarget, c: ExchangeCall) {
      const query = c.query && Object.keys(c.query).length > 0 ? `?${new URLSearchParams(c.query).toString()}` : "";
      const url = joinUrl(target.baseUrl, `${c.path}${query}`);
      const pathWithQuery = `${new URL(url).pathname}${query}`;
      const body = c.body === undefined ? "" : JSON.stringify(c.body);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const headers: Record<string, string> = {
        ...c.headers,
        "x-sigil-key": target.apiKey,
        "x-sigil-timestamp": timestamp,
        "x-sigil-signature": requestSignature(target.apiSecret, timestamp, c.method, pathWithQuery, body),
      };
      if (target.passphrase !== null) headers["x-sigil-passphrase"] = target.passphrase;
      if (c.bearer) headers.authorization = `Bearer ${c.bearer}`;
      if (c.body !== undefined) headers["content-type"] = "application/json";
      return send(target, c.method, url, headers, c.method === "POST" ? body : undefined);
    },
    token(target, form) {
      const basic = Buffer.from(`${encodeURIComponent(target.apiKey)}:${encodeURIComponent(target.apiSecret)}`).toString("base64");
      return send(
        target,
        "POST",
        joinUrl(target.baseUrl, "/oauth/token"),
        { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${basic}` },
        new URLSearchParams(form).toString(),
      );
    },
    authorizationUrl(target, params) {
      return `${joinUrl(target.baseUrl, "/oauth/authorize")}?${new URLSearchParams(params).toString()}`;
    },
    signedBuyUrl(target, params) {
      const signed = { ...params, key: target.apiKey, timestamp: String(Math.floor(Date.now() / 1000)) };
      const canonical = canonicalQuery(signed);
      const signature = createHmac("sha256", target.apiSecret).update(canonical).digest("hex");
      return `${joinUrl(target.baseUrl, "/buy")}?${canonical}&signature=${signature}`;
    },
  };
}
