import { constants, createCipheriv, createDecipheriv, createPublicKey, privateDecrypt, publicEncrypt, randomBytes, type KeyObject } from "node:crypto";
import { base64urlnopad } from "@scure/base";
import { CompactEncrypt, type JWK } from "jose";
import { badRequest } from "../errors.js";

/**
 * Envelopes for key material that leaves the service encrypted to someone else's key:
 *
 * - an export (a key or a user's share set) goes to a P-256 public key the client generated for that one
 *   export, as a JWE compact (ECDH-ES, A256GCM): any JOSE library on the client opens it;
 * - a delegated share goes to the environment's registered delegated-access RSA key as the spec's
 *   HYBRID-RSA-AES-256 envelope `{alg, iv, ct, tag, ek, kid}` (the shape of the published client's
 *   encryptedDelegatedShare): AES-256-GCM under a fresh key, that key wrapped with RSA-OAEP-256.
 */

const invalidExportKey = (why: string) => badRequest("invalid_export_key", `invalid export key: ${why}`);

// createPublicKey would derive the public half of a private JWK; a client must never send us one.
const JWK_PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"] as const;

/** The client's one-time export key as a KeyObject: an EC P-256 public JWK with x and y, nothing else accepted. */
function exportKey(jwk: JWK): KeyObject {
  if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) throw invalidExportKey("a JWK object is required");
  if (jwk.kty !== "EC") throw invalidExportKey(`kty must be EC, got ${JSON.stringify(jwk.kty ?? null)}`);
  if (jwk.crv !== "P-256") throw invalidExportKey(`crv must be P-256, got ${JSON.stringify(jwk.crv ?? null)}`);
  if (JWK_PRIVATE_MEMBERS.some((m) => m in jwk)) throw invalidExportKey("a private key was given; send the public key only");
  if (typeof jwk.x !== "string" || typeof jwk.y !== "string") throw invalidExportKey("x and y must be base64url strings");
  if (jwk.use !== undefined && jwk.use !== "enc") throw invalidExportKey("use must be enc");
  try {
    // OpenSSL checks that (x, y) is a point of the curve: an invalid-curve point is refused here.
    return createPublicKey({ key: { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y }, format: "jwk" });
  } catch {
    throw invalidExportKey("x and y are not a point of P-256");
  }
}

/**
 * `plaintext` as a JWE compact (alg ECDH-ES, enc A256GCM) to the client's one-time P-256 public key; the
 * protected header names the key's kid when the JWK has one. Throws 400 invalid_export_key for any other key.
 */
export async function encryptForExport(recipientPublicJwk: JWK, plaintext: Uint8Array): Promise<string> {
  const key = exportKey(recipientPublicJwk);
  const header = { alg: "ECDH-ES", enc: "A256GCM", ...(typeof recipientPublicJwk.kid === "string" ? { kid: recipientPublicJwk.kid } : {}) };
  return new CompactEncrypt(plaintext).setProtectedHeader(header).encrypt(key);
}

export const HYBRID_RSA_AES_256 = "HYBRID-RSA-AES-256";

/** The spec's delegated-share envelope; every binary field is base64url without padding. */
export interface HybridEnvelope {
  alg: typeof HYBRID_RSA_AES_256;
  iv: string;
  ct: string;
  tag: string;
  /** The AES-256 key wrapped with RSA-OAEP (SHA-256, MGF1-SHA-256) to the recipient's public key. */
  ek: string;
  /** The recipient key's kid, so the developer knows which private key opens it. */
  kid: string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/**
 * No associated data: a developer opens the envelope with any AES-GCM and RSA-OAEP implementation from the
 * five fields alone. Relabelling `kid` gains nothing: only the matching private key unwraps `ek`.
 */
export function sealHybridRsaAes256(rsaPublicKeyPem: string, kid: string, plaintext: Uint8Array): HybridEnvelope {
  const dataKey = randomBytes(KEY_BYTES);
  try {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", dataKey, iv, { authTagLength: TAG_BYTES });
    const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    const ek = publicEncrypt({ key: rsaPublicKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, dataKey);
    const b64 = (b: Uint8Array) => base64urlnopad.encode(b);
    return { alg: HYBRID_RSA_AES_256, iv: b64(iv), ct: b64(ct), tag: b64(cipher.getAuthTag()), ek: b64(ek), kid };
  } finally {
    dataKey.fill(0);
  }
}

/** Deliberately uninformative, as SealError: which check failed is not the caller's business. */
export class EnvelopeError extends Error {
  constructor() {
    super("envelope cannot be opened");
    this.name = "EnvelopeError";
  }
}

/** Opens a HYBRID-RSA-AES-256 envelope with the recipient's private key (recovery, and the developer's side in tests). */
export function openHybridRsaAes256(privateKeyPem: string, envelope: HybridEnvelope): Uint8Array {
  if (envelope?.alg !== HYBRID_RSA_AES_256 || typeof envelope.kid !== "string") throw new EnvelopeError();
  let dataKey: Buffer | undefined;
  try {
    const [iv, ct, tag, ek] = [envelope.iv, envelope.ct, envelope.tag, envelope.ek].map((f) => base64urlnopad.decode(f));
    if (iv!.length !== IV_BYTES || tag!.length !== TAG_BYTES) throw new EnvelopeError();
    dataKey = privateDecrypt({ key: privateKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, ek!);
    if (dataKey.length !== KEY_BYTES) throw new EnvelopeError();
    const decipher = createDecipheriv("aes-256-gcm", dataKey, iv!, { authTagLength: TAG_BYTES });
    decipher.setAuthTag(tag!);
    return new Uint8Array(Buffer.concat([decipher.update(ct!), decipher.final()]));
  } catch {
    throw new EnvelopeError();
  } finally {
    dataKey?.fill(0);
  }
}
