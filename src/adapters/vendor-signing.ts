import { createHash, createHmac } from "node:crypto";

/**
 * How Sigil signs what it sends to a vendor (the price source, the ramp provider), so the vendor can tell
 * Sigil's requests from anyone's and refuse a replay. One scheme for every vendor, documented beside the
 * protocols in proto/sigil/ramps/v0/ramps_service.proto:
 *
 * - A request carries `X-Sigil-Key-Id`, `X-Sigil-Timestamp` (Unix seconds) and
 *   `X-Sigil-Signature: v1=<hex HMAC-SHA256(secret, "v1\n" + timestamp + "\n" + METHOD + "\n" + path + "\n"
 *   + canonical query + "\n" + hex SHA-256(body))>`.
 * - A URL handed to a user's browser (a buy or sell URL) carries `keyId`, `timestamp` and, last,
 *   `signature=<hex HMAC-SHA256(secret, canonical query of every other parameter)>`.
 *
 * The canonical query: every parameter percent-encoded as RFC 3986 says (encodeURIComponent plus !'()*),
 * sorted by name then value, joined as name=value with &. A vendor should refuse a timestamp more than five
 * minutes from its clock.
 */
export const SIGNATURE_VERSION = "v1";

const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The canonical form of a set of query parameters (sorted, strictly encoded). */
export function canonicalQuery(params: Iterable<[string, string]>): string {
  return [...params]
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
}

const hmac = (secret: string, text: string) => createHmac("sha256", secret).update(text).digest("hex");

/** The headers that sign one request to a vendor. */
export function requestSignatureHeaders(
  account: { keyId: string; secret: string },
  req: { method: string; url: URL; body: string },
  nowSeconds = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const timestamp = String(nowSeconds);
  const bodyDigest = createHash("sha256").update(req.body).digest("hex");
  const text = [SIGNATURE_VERSION, timestamp, req.method.toUpperCase(), req.url.pathname, canonicalQuery(req.url.searchParams), bodyDigest].join("\n");
  return { "x-sigil-key-id": account.keyId, "x-sigil-timestamp": timestamp, "x-sigil-signature": `${SIGNATURE_VERSION}=${hmac(account.secret, text)}` };
}

/** `url` with `params`, `keyId`, `timestamp` and their `signature` added (parameters the URL already had are signed too). */
export function signedUrl(account: { keyId: string; secret: string }, url: string, params: Record<string, string>, nowSeconds = Math.floor(Date.now() / 1000)): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  u.searchParams.delete("signature");
  u.searchParams.set("keyId", account.keyId);
  u.searchParams.set("timestamp", String(nowSeconds));
  const signature = hmac(account.secret, canonicalQuery(u.searchParams));
  u.search = `${canonicalQuery(u.searchParams)}&signature=${signature}`;
  return u.toString();
}
