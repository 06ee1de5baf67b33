import { p256 } from "@noble/curves/nist.js";
import { base64urlnopad } from "@scure/base";

/**
 * The *keygen id* of a P-256 key: base64url (no padding) of its SEC1 compressed point, 33 bytes, and back to
 * the public JWK it names. Pure curve arithmetic, so that the demo page's device (bundled for the browser)
 * names and reads keys with the service's own code; src/crypto/keygen-envelope.ts validates ids through
 * OpenSSL where the service receives them.
 */

/** The keygen id of a P-256 JWK (public or private). */
export function keygenIdOf(jwk: { x?: string; y?: string }): string {
  const coordinate = (b64: string | undefined) => p256.Point.Fp.fromBytes(base64urlnopad.decode(b64 ?? ""));
  return base64urlnopad.encode(p256.Point.fromAffine({ x: coordinate(jwk.x), y: coordinate(jwk.y) }).toBytes(true));
}

/** The public JWK a keygen id names. */
export function keygenIdJwk(keygenId: string): { kty: "EC"; crv: "P-256"; x: string; y: string } {
  const point = p256.Point.fromBytes(base64urlnopad.decode(keygenId)).toAffine();
  const coordinate = (n: bigint) => base64urlnopad.encode(p256.Point.Fp.toBytes(n));
  return { kty: "EC", crv: "P-256", x: coordinate(point.x), y: coordinate(point.y) };
}
