import { createPublicKey, type JsonWebKey, type KeyObject } from "node:crypto";
import { calculateJwkThumbprint } from "jose";
import { badRequest } from "../errors.js";

/**
 * Public keys that clients register for delegated access: the service encrypts to them (RSA-OAEP-256 JWE), so
 * only genuine RSA public keys strong enough for that are accepted, and every accepted key is normalised to
 * SPKI PEM and a public JWK whatever form it came in.
 */

export interface ParsedRsaPublicKey {
  spkiPem: string;
  modulusBits: number;
  /** Public members only: { kty: "RSA", n, e }. */
  jwk: JsonWebKey;
}

const MIN_MODULUS_BITS = 2048;
// Bounds the cost of every encryption to the key; no real deployment uses more.
const MAX_MODULUS_BITS = 16384;
// A 16384-bit key is ~3 KB of PEM or JWK; anything far larger is not a key and not worth parsing.
const MAX_INPUT_CHARS = 16 * 1024;

// One PEM block and nothing else, so that trailing text (say, a private key pasted along) is not ignored.
const PEM_SHAPE = /^-----BEGIN (RSA )?PUBLIC KEY-----\r?\n[A-Za-z0-9+/=\r\n]+-----END \1PUBLIC KEY-----$/;

// createPublicKey derives the public half from a private JWK; refusing these keeps private keys out of our storage.
const JWK_PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth"] as const;

const invalid = (why: string) => badRequest("invalid_public_key", `invalid public key: ${why}`);

export function parseRsaPublicKey(input: string): ParsedRsaPublicKey {
  const text = input.trim();
  if (text.length === 0) throw invalid("empty");
  if (text.length > MAX_INPUT_CHARS) throw invalid("too long");
  const key = text.startsWith("{") ? fromJwk(text) : fromPem(text);

  // "rsa-pss" SPKI keys are restricted to signatures and cannot be used with RSA-OAEP.
  if (key.asymmetricKeyType !== "rsa") throw invalid(`expected an RSA key, got ${key.asymmetricKeyType ?? "unknown"}`);
  const modulusBits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (modulusBits < MIN_MODULUS_BITS) throw invalid(`RSA modulus must be at least ${MIN_MODULUS_BITS} bits, got ${modulusBits}`);
  if (modulusBits > MAX_MODULUS_BITS) throw invalid(`RSA modulus must be at most ${MAX_MODULUS_BITS} bits`);
  const e = key.asymmetricKeyDetails?.publicExponent ?? 0n;
  // e = 1 makes "encryption" the identity; an even e is not a valid RSA exponent.
  if (e < 3n || e % 2n === 0n) throw invalid("RSA public exponent must be odd and at least 3");

  const spkiPem = key.export({ type: "spki", format: "pem" }).toString();
  const { kty, n, e: exponent } = key.export({ format: "jwk" });
  return { spkiPem, modulusBits, jwk: { kty, n, e: exponent } };
}

/**
 * The key's RFC 7638 JWK thumbprint (base64url SHA-256, 43 characters): a kid derived from the key itself, so
 * the same key always gets the same kid whichever form it was registered in.
 */
export async function keyIdFor(spkiPem: string): Promise<string> {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: spkiPem, format: "pem" });
  } catch {
    throw invalid("not a PEM public key");
  }
  return calculateJwkThumbprint(key, "sha256");
}

function fromPem(text: string): KeyObject {
  if (!PEM_SHAPE.test(text)) throw invalid("expected a PEM public key (BEGIN PUBLIC KEY or BEGIN RSA PUBLIC KEY) or an RSA JWK");
  try {
    return createPublicKey({ key: text, format: "pem" });
  } catch {
    throw invalid("malformed PEM");
  }
}

function fromJwk(text: string): KeyObject {
  let jwk: unknown;
  try {
    jwk = JSON.parse(text);
  } catch {
    throw invalid("malformed JSON");
  }
  if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) throw invalid("a JWK must be a JSON object");
  const members = jwk as Record<string, unknown>;
  if (members.kty !== "RSA") throw invalid("JWK kty must be RSA");
  if (JWK_PRIVATE_MEMBERS.some((m) => m in members)) throw invalid("a private key was given; send the public key only");
  if (typeof members.n !== "string" || typeof members.e !== "string") throw invalid("JWK must have string n and e");
  try {
    // Only the members that define the key: metadata such as alg, use or kid is not ours to keep.
    return createPublicKey({ key: { kty: "RSA", n: members.n, e: members.e }, format: "jwk" });
  } catch {
    throw invalid("malformed RSA JWK");
  }
}
