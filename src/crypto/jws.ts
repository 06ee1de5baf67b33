import { sign, type KeyObject } from "node:crypto";

/** The algorithms signCompactJws makes (the environments' session-token algorithms). */
export type JwsAlg = "ES256" | "RS256";

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/**
 * A JWS in compact serialization (RFC 7515) over a JSON payload, signed with node's crypto. jose signs the
 * same bytes through WebCrypto, whose job and promise machinery cost ~170 µs of CPU an ES256 signature on the
 * reference box against ~40 µs for OpenSSL called directly, and every sign-in and refresh makes two.
 * ES256 signs inline (raw r‖s, as JWS wants: ieee-p1363); RS256, 16 times slower, on libuv's thread pool so
 * the event loop does not wait for it. Tokens are verified with jose (src/domain/sessions/tokens.ts), and
 * test/crypto/jws.test.ts holds what this makes to jose's verification.
 */
export function signCompactJws(header: { alg: JwsAlg; kid: string; typ: "JWT" }, payload: Record<string, unknown>, key: KeyObject): Promise<string> {
  const input = `${b64url(header)}.${b64url(payload)}`;
  const data = Buffer.from(input);
  const compact = (signature: Buffer) => `${input}.${signature.toString("base64url")}`;
  if (header.alg === "ES256") return Promise.resolve(compact(sign("sha256", data, { key, dsaEncoding: "ieee-p1363" })));
  return new Promise((resolve, reject) => sign("sha256", data, key, (err, signature) => (err ? reject(err) : resolve(compact(signature)))));
}
