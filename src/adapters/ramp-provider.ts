import type { RampSettings } from "../config-ramps.js";
import type { WebhookSettings } from "../config.js";
import type { VendorEndpoint } from "../domain/vendors/port.js";
import { providerRejected, providerUnavailable } from "../domain/rates/errors.js";
import type { CardPayment, RampOption, RampProvider, RampQuery } from "../domain/ramps/provider.js";
import { createVendorHttp, vendorObject } from "./vendor-http.js";
import { signedUrl } from "./vendor-signing.js";

const VENDOR = "ramp provider";
/** Options listed per answer: a provider offers a handful; more is not something a wallet shows. */
const MAX_OPTIONS = 50;
/** The optional fields of a payment passed on as the provider sent them, by their JSON type. */
const OPTIONAL_PAYMENT_FIELDS: Record<string, "string" | "number" | "boolean" | "object"> = {
  amountRefunded: "number", created: "number", cryptoCurrency: "string", cryptoAmount: "string", customerId: "string", returnUrl: "string",
  cancelUrl: "string", description: "string", liveMode: "boolean", metadata: "object", orderId: "string", recipient: "string", refunded: "boolean", expiredAt: "number",
};

const isHttpUrl = (v: unknown): v is string => typeof v === "string" && URL.canParse(v) && ["http:", "https:"].includes(new URL(v).protocol);
const str = (v: number | string | undefined) => (v === undefined ? undefined : String(v));

/** The query a listing is asked with, and the parameters its URLs are signed with: the same, so the provider sees what the user chose. */
const queryOf = (q: RampQuery): Record<string, string | undefined> => ({
  walletAddress: q.walletAddress, chain: q.chain, networkId: q.networkId, token: q.token, tokenAmount: str(q.tokenAmount), currency: q.currency, merchantName: q.merchantName,
});

/**
 * The ramp provider's vendor-neutral protocol (every request signed, src/adapters/vendor-signing.ts):
 * - `GET {base}/v1/onramps?walletAddress&chain&networkId&token&tokenAmount&currency&merchantName` ->
 *   `{ "onramps": [{ "id", "name", "iconUrl", "url", "qrCode"? }] }`; `GET {base}/v1/offramps` -> `{ "offramps": [...] }`.
 *   Each `url` reaches the user with the query's parameters, `keyId`, `timestamp` and `signature` added.
 * - `POST {base}/v1/card-payments` (the payment-create JSON; `Idempotency-Key` when the client sent one) ->
 *   201/200 with the payment (`id`, `amount`, `currency`, `paymentUrl`, `qrCode`, `status`, ...); a 400/409/422
 *   with `{ "error": "..." }` is the provider refusing the request.
 */
export function createRampProvider(account: VendorEndpoint, settings: RampSettings, webhooks: WebhookSettings): RampProvider {
  const call = createVendorHttp(VENDOR, account, settings, webhooks);
  const list = async (kind: "onramps" | "offramps", q: RampQuery): Promise<RampOption[]> => {
    const query = queryOf(q);
    const res = await call({ method: "GET", path: `/v1/${kind}`, query });
    if (res.status !== 200) throw providerUnavailable(VENDOR, `it answered HTTP ${res.status}`);
    const items = vendorObject(VENDOR, res.json)[kind];
    if (!Array.isArray(items)) throw providerUnavailable(VENDOR, `the answer has no ${kind} list`);
    const signParams = Object.fromEntries(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
    // An entry without its id, name or a usable URL cannot be shown: left out, not patched.
    return items.slice(0, MAX_OPTIONS).flatMap((it: Record<string, unknown>): RampOption[] => {
      if (!it || typeof it.id !== "string" || typeof it.name !== "string" || !isHttpUrl(it.url)) return [];
      return [{
        provider: it.id,
        name: it.name,
        iconUrl: isHttpUrl(it.iconUrl) ? it.iconUrl : "",
        url: signedUrl(account, it.url, signParams),
        ...(typeof it.qrCode === "string" ? { qrCode: it.qrCode } : {}),
      }];
    });
  };
  return {
    onramps: (q) => list("onramps", q),
    offramps: (q) => list("offramps", q),
    async createCardPayment(input, idempotencyKey) {
      const res = await call({ method: "POST", path: "/v1/card-payments", body: input, headers: idempotencyKey ? { "idempotency-key": idempotencyKey } : {} });
      if (res.status >= 400) {
        const reason = (res.json as { error?: unknown })?.error;
        throw providerRejected(VENDOR, typeof reason === "string" ? reason.slice(0, 200) : `HTTP ${res.status}`);
      }
      return cardPaymentOf(vendorObject(VENDOR, res.json));
    },
  };
}

function cardPaymentOf(p: Record<string, unknown>): CardPayment {
  const { id, amount, currency, paymentUrl, qrCode, status } = p;
  if (typeof id !== "string" || typeof amount !== "number" || typeof currency !== "string" || !isHttpUrl(paymentUrl) || typeof status !== "string")
    throw providerUnavailable(VENDOR, "the payment it answered lacks its id, amount, currency, paymentUrl or status");
  const optional = Object.fromEntries(Object.entries(OPTIONAL_PAYMENT_FIELDS).flatMap(([k, type]) => (typeof p[k] === type && p[k] !== null ? [[k, p[k]]] : [])));
  return { ...optional, id, amount, currency, paymentUrl, qrCode: typeof qrCode === "string" ? qrCode : "", status };
}
