import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { base64urlnopad } from "@scure/base";
import { CompactEncrypt, compactDecrypt } from "jose";
import { badRequest, unprocessable } from "../errors.js";
import { keygenIdOf } from "./keygen-id.js";

/**
 * Envelopes between the user's device and the service for key-share operations (the WaaS "rooms",
 * src/domain/waas/threshold/rooms.ts). Each side names a P-256 public key by its *keygen id*: base64url (no padding)
 * of the SEC1 compressed point, 33 bytes. A share for the device travels as a JWE compact (ECDH-ES,
 * A256GCM) to the device's keygen id; what the device sends the service travels the same way to the room's
 * key. The protected header carries a `sigil` label (which share set and holder, which room and part), and
 * the header is authenticated: an envelope moved to another set, holder or room fails to open there.
 */

const invalidKeygenId = (why: string) => badRequest("invalid_keygen_id", `invalid keygen id: ${why}`);

/** DER of a P-256 SubjectPublicKeyInfo (id-ecPublicKey, prime256v1) up to its 33-byte compressed point. */
const P256_COMPRESSED_SPKI = Buffer.from("3039301306072a8648ce3d020106082a8648ce3d030107032200", "hex");

/** The P-256 public key a keygen id names; 400 invalid_keygen_id for anything but a compressed curve point. */
export function keygenIdKey(keygenId: string): KeyObject {
  let bytes: Uint8Array;
  try {
    bytes = base64urlnopad.decode(keygenId);
  } catch {
    throw invalidKeygenId("not base64url without padding");
  }
  if (bytes.length !== 33 || (bytes[0] !== 2 && bytes[0] !== 3)) throw invalidKeygenId("a keygen id is a compressed P-256 point (33 bytes)");
  try {
    // OpenSSL decompresses the point and checks that it is on the curve (an invalid-curve point is refused
    // here), ~30 µs where noble's square root took ~0.7 ms: once per envelope on both sides of every signature.
    return createPublicKey({ key: Buffer.concat([P256_COMPRESSED_SPKI, bytes]), format: "der", type: "spki" });
  } catch {
    throw invalidKeygenId("not a point of P-256");
  }
}

/** A fresh key pair: its keygen id and its private key as a JWK string (for the caller to seal). */
export function newKeygenKey(): { keygenId: string; privateJwk: string } {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = privateKey.export({ format: "jwk" });
  return { keygenId: keygenIdOf(jwk), privateJwk: JSON.stringify(jwk) };
}

/** `plaintext` as a JWE compact to the key a keygen id names, labelled (authenticated, not secret). */
export async function encryptToKeygenId(keygenId: string, label: string, plaintext: Uint8Array): Promise<string> {
  return new CompactEncrypt(plaintext).setProtectedHeader({ alg: "ECDH-ES", enc: "A256GCM", sigil: label }).encrypt(keygenIdKey(keygenId));
}

/**
 * Opens an envelope sent to `privateJwk` under `label`. A wrong key, a tampered envelope, another label or
 * another algorithm all answer 422 envelope_not_opened (`what` names the part for the caller).
 */
export async function openFromKeygenId(privateJwk: string, label: string, jwe: string, what: string): Promise<Uint8Array> {
  const refused = () => unprocessable("envelope_not_opened", `${what} cannot be opened: it was not encrypted to this room's key under its label`, { part: what });
  if (typeof jwe !== "string" || jwe.length > 16_384) throw refused();
  try {
    const key = createPrivateKey({ key: JSON.parse(privateJwk), format: "jwk" });
    const { plaintext, protectedHeader } = await compactDecrypt(jwe, key, { keyManagementAlgorithms: ["ECDH-ES"], contentEncryptionAlgorithms: ["A256GCM"] });
    if (protectedHeader.sigil !== label) throw new Error("label");
    return plaintext;
  } catch {
    throw refused();
  }
}
