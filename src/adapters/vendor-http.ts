import type { RampSettings } from "../config-ramps.js";
import type { WebhookSettings } from "../config.js";
import { providerUnavailable, vendorUrlRefused, type Vendor } from "../domain/rates/errors.js";
import type { VendorEndpoint } from "../domain/vendors/port.js";
import { destinationRules, type DestinationRules } from "../net/destination-policy.js";
import { DESTINATION_REFUSED, pinnedClient } from "../net/pinned-fetch.js";
import { requestSignatureHeaders } from "./vendor-signing.js";

/** One call to a vendor's protocol: a path under its base URL, query parameters (unset ones left out), a JSON body. */
export interface VendorCall {
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A vendor's 2xx or 4xx answer, its JSON read (a 4xx the caller maps: the vendor refused what was asked). */
export interface VendorAnswer {
  status: number;
  json: unknown;
}

/**
 * The rules a vendor URL is reached under. The operator's is trusted as written, loopback included, as its
 * default chain nodes are (src/adapters/chain-http.ts). An environment's own obeys the service's destination
 * policy as webhooks do: public addresses only (https checked before, in the call), a sandbox's loopback only
 * while SIGIL_WEBHOOK_SANDBOX_LOOPBACK allows it. Either way the connection is pinned to the address checked.
 */
const rulesFor = (endpoint: VendorEndpoint, webhooks: WebhookSettings): DestinationRules =>
  endpoint.trusted
    ? { environmentName: "sandbox", sandboxLoopback: true, allowHosts: [new URL(endpoint.url).hostname], protectedPorts: [] }
    : destinationRules(webhooks, endpoint.environmentName);

/** A Retry-After of seconds (an HTTP date is not worth parsing here: the default applies). */
const retryAfterOf = (raw: string | null) => (raw && /^\d{1,6}$/.test(raw.trim()) ? Number(raw) : undefined);

/**
 * Signed, bounded calls to one vendor (src/adapters/vendor-signing.ts): every call has the deadline
 * SIGIL_VENDOR_TIMEOUT_MS and reads at most SIGIL_VENDOR_MAX_RESPONSE_BYTES; a vendor that refuses the
 * connection, fails, times out, answers 5xx / 429 / 401 / 403 (it refused Sigil's key: the operator's to
 * fix, not the caller's), too much or not JSON is provider_unavailable (503, its Retry-After passed on).
 */
export function createVendorHttp(vendor: Vendor, account: VendorEndpoint, settings: RampSettings, webhooks: WebhookSettings) {
  return async (call: VendorCall): Promise<VendorAnswer> => {
    const url = new URL(`${account.url}${call.path}`);
    // Refused before anything is signed or sent: a live environment's own vendor is reached over https only.
    if (!account.trusted && account.environmentName === "live" && url.protocol !== "https:") throw vendorUrlRefused(vendor, "a live environment's vendor URL must use https", url.host);
    for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    const body = call.body === undefined ? "" : JSON.stringify(call.body);
    const headers = {
      accept: "application/json",
      ...(call.body === undefined ? {} : { "content-type": "application/json" }),
      ...call.headers,
      ...requestSignatureHeaders(account, { method: call.method, url, body }),
    };
    // The query differs per call and a pinned client is bound to one URL: one per call, closed after.
    const client = pinnedClient(url.toString(), rulesFor(account, webhooks));
    const deadline = AbortSignal.timeout(settings.timeoutMs);
    let res;
    try {
      const init = { headers, signal: deadline, maxBytes: settings.maxResponseBytes + 1 };
      res = call.method === "GET" ? await client.get(init) : await client.post({ ...init, body });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === DESTINATION_REFUSED) throw vendorUrlRefused(vendor, (err as Error).message, url.host);
      throw providerUnavailable(vendor, deadline.aborted ? `no answer within ${settings.timeoutMs} ms` : "the connection failed");
    } finally {
      void client.close();
    }
    const retryAfter = retryAfterOf(res.retryAfter);
    if (res.status >= 500 || res.status === 429) throw providerUnavailable(vendor, `it answered HTTP ${res.status}`, retryAfter);
    if (res.status === 401 || res.status === 403) throw providerUnavailable(vendor, `it refused Sigil's signature (HTTP ${res.status})`);
    if (res.status < 200 || (res.status >= 300 && res.status < 400)) throw providerUnavailable(vendor, `it answered HTTP ${res.status}`);
    if (res.excerpt === null) throw providerUnavailable(vendor, "the answer could not be read");
    if (Buffer.byteLength(res.excerpt) > settings.maxResponseBytes) throw providerUnavailable(vendor, `the answer is larger than ${settings.maxResponseBytes} bytes`);
    try {
      return { status: res.status, json: JSON.parse(res.excerpt) as unknown };
    } catch {
      throw providerUnavailable(vendor, "the answer is not JSON");
    }
  };
}

/** A decimal the vendor sent (a JSON number or a decimal string) as a finite, non-negative number; null otherwise. */
export function vendorDecimal(v: unknown): number | null {
  const n = typeof v === "number" ? v : typeof v === "string" && /^\d+(\.\d+)?([eE][+-]?\d+)?$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : null;
}

/** The JSON object a vendor answered, or provider_unavailable for anything else. */
export function vendorObject(vendor: Vendor, json: unknown): Record<string, unknown> {
  if (!json || typeof json !== "object" || Array.isArray(json)) throw providerUnavailable(vendor, "the answer is not a JSON object");
  return json as Record<string, unknown>;
}
