import { ed25519 } from "@noble/curves/ed25519.js";
import { p256 } from "@noble/curves/nist.js";
import { hexToBytes } from "@noble/hashes/utils.js";
import { base64urlnopad } from "@scure/base";
import type { Queryable } from "../../db/db.js";
import * as sessionKeys from "../../db/repositories/session-keys.js";
import { DomainError, badRequest } from "../../errors.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";

/**
 * Session keys: a public key the user's device registers for its session, to sign its wallet requests.
 * The key's form says its scheme: a P-256 point (33 bytes compressed or 65 uncompressed, hex) signs ECDSA
 * over SHA-256 (the WebCrypto / Turnkey API-key scheme; DER or 64-byte compact signatures, high S accepted
 * as WebCrypto makes them); 32 bytes hex is an ed25519 key (signature 64 bytes). The key is good only while
 * its session is live (the repository joins sessions), so a revoked session revokes its keys.
 */

export type SessionKeyScheme = "p256" | "ed25519";

const HEX = /^(0x)?[0-9a-fA-F]+$/;

/** The key in stored form (lowercase hex, compressed for P-256) and its scheme; 400 invalid_session_key otherwise. */
export function parseSessionKey(publicKey: string): { hex: string; scheme: SessionKeyScheme } {
  const invalid = (why: string) => badRequest("invalid_session_key", `publicKey ${why}`, { field: "publicKey" });
  if (!HEX.test(publicKey)) throw invalid("must be hex");
  const hex = publicKey.replace(/^0x/, "").toLowerCase();
  if (hex.length === 64) {
    try {
      ed25519.Point.fromHex(hex);
    } catch {
      throw invalid("is not an ed25519 point");
    }
    return { hex, scheme: "ed25519" };
  }
  if (hex.length !== 66 && hex.length !== 130) throw invalid("must be a P-256 point (33 or 65 bytes) or an ed25519 key (32 bytes)");
  try {
    return { hex: p256.Point.fromHex(hex).toHex(true), scheme: "p256" };
  } catch {
    throw invalid("is not a point of P-256");
  }
}

/**
 * Registers the device's key for the caller's live session; answers the key and when it stops counting.
 * `deps.db` may be a transaction, for a key registered as part of a larger change (upgradeToV2).
 */
export async function registerSessionKey(deps: { db: Queryable }, principal: EndUserPrincipal, publicKey: string) {
  const key = parseSessionKey(publicKey);
  const saved = await sessionKeys.insertSessionKey(deps.db, principal.environmentId, {
    sessionId: principal.sessionId,
    userId: principal.userId,
    publicKey: key.hex,
  });
  if (!saved) throw new DomainError("unauthenticated", "invalid_session", "the session has been revoked or has expired");
  const expiresAt = saved.expiresAt ?? new Date(principal.expiresAt * 1000);
  return { publicKey: key.hex, expiresAt };
}

/** Whether `signature` (hex) is a valid signature of `payload` by `publicKey` (hex) under its scheme; never throws. */
export function sessionKeySignatureValid(publicKey: string, payload: Uint8Array, signature: string): boolean {
  try {
    const key = parseSessionKey(publicKey);
    if (!HEX.test(signature)) return false;
    const sig = hexToBytes(signature.replace(/^0x/, ""));
    if (key.scheme === "ed25519") return ed25519.verify(sig, payload, hexToBytes(key.hex));
    const format = sig.length === 64 ? "compact" : "der";
    return p256.verify(sig, payload, hexToBytes(key.hex), { format, lowS: false });
  } catch {
    return false;
  }
}

/**
 * For the signing paths: true when `signature` is `sessionKeyPublicKey`'s signature of `payload` and that key is
 * registered by this user of this environment for a session that is still live (not revoked, not expired).
 */
export async function verifySessionKeySignature(
  deps: Pick<Deps, "db">,
  a: { environmentId: string; userId: string; sessionKeyPublicKey: string; payload: Uint8Array; signature: string },
): Promise<boolean> {
  let hex: string;
  try {
    hex = parseSessionKey(a.sessionKeyPublicKey).hex;
  } catch {
    return false;
  }
  if (!sessionKeySignatureValid(hex, a.payload, a.signature)) return false;
  return sessionKeys.isLiveSessionKey(deps.db, a.environmentId, a.userId, hex);
}

/** The compressed P-256 key (hex) as the public JWK encryptForExport takes. */
export function sessionKeyJwk(hex: string) {
  const { x, y } = p256.Point.fromHex(hex).toAffine();
  const b64 = (n: bigint) => base64urlnopad.encode(Uint8Array.from(Buffer.from(n.toString(16).padStart(64, "0"), "hex")));
  return { kty: "EC", crv: "P-256", x: b64(x), y: b64(y) };
}
