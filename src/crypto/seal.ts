import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from "node:crypto";
import { base64urlnopad } from "@scure/base";

/**
 * Sealing of secrets the service must read back (OAuth client secrets, webhook signing keys, ...) with
 * AES-256-GCM. A sealed value is a compact string:
 *
 *     v1.<keyId>.<base64url iv (12 bytes)>.<base64url ciphertext || 16-byte tag>
 *
 * The first key seals, every listed key opens, so keys rotate by prepending a new key and resealing at leisure.
 * The header (`v1.<keyId>.`) and the caller's `aad` are both authenticated: `aad` binds a secret to the row
 * that holds it (e.g. `provider:<id>`), so a sealed value copied to another row does not open there.
 */

export interface SealingKey {
  /** Short stable name written into each sealed value; letters, digits, `_` and `-` only. */
  id: string;
  /** 32 bytes of key material. */
  key: Buffer;
}

export interface Sealer {
  /** The id of the key that seals (the first listed); values under any other listed key still open. */
  readonly currentKeyId: string;
  /** Every key id that opens, the current one first. */
  readonly keyIds: readonly string[];
  seal(plaintext: string, aad?: string): string;
  /** Throws SealError when the value is malformed, sealed under an unknown key, tampered with, or bound to another aad. */
  open(sealed: string, aad?: string): string;
  /** True when `sealed` was not sealed with the current (first) key and should be resealed. */
  needsReseal(sealed: string): boolean;
}

/** Deliberately uninformative: callers must not learn which check failed. */
export class SealError extends Error {
  constructor(message = "sealed value cannot be opened") {
    super(message);
    this.name = "SealError";
  }
}

const VERSION = "v1";
const ALGORITHM = "aes-256-gcm";
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
// No "." so that the compact format splits unambiguously.
const KEY_ID_SHAPE = /^[A-Za-z0-9_-]{1,64}$/;

export function createSealer(keys: SealingKey[]): Sealer {
  if (keys.length === 0) throw new Error("createSealer: at least one key is required");
  const byId = new Map<string, KeyObject>();
  for (const { id, key } of keys) {
    if (!KEY_ID_SHAPE.test(id)) throw new Error(`createSealer: invalid key id ${JSON.stringify(id)}`);
    if (key.length !== KEY_BYTES) throw new Error(`createSealer: key ${id} must be ${KEY_BYTES} bytes`);
    if (byId.has(id)) throw new Error(`createSealer: duplicate key id ${id}`);
    // A KeyObject copies the material, so a mutation of the caller's Buffer afterwards cannot change our key.
    byId.set(id, createSecretKey(Buffer.from(key)));
  }
  const currentId = keys[0].id;
  const currentKey = byId.get(currentId)!;

  return {
    currentKeyId: currentId,
    keyIds: [...byId.keys()],

    seal(plaintext, aad) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, currentKey, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(associatedData(currentId, aad));
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
      return [VERSION, currentId, base64urlnopad.encode(iv), base64urlnopad.encode(body)].join(".");
    },

    open(sealed, aad) {
      const { keyId, iv, body } = parse(sealed);
      const key = byId.get(keyId);
      if (!key) throw new SealError(`sealed value uses unknown key ${keyId}`);
      try {
        const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(associatedData(keyId, aad));
        decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
        const plaintext = Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]);
        return plaintext.toString("utf8");
      } catch {
        // OpenSSL's "unable to authenticate data" says nothing useful and the cause must stay hidden anyway.
        throw new SealError();
      }
    },

    needsReseal(sealed) {
      return parse(sealed).keyId !== currentId;
    },
  };
}

/** The header is authenticated too, so a value cannot be relabelled with another version or key id. */
function associatedData(keyId: string, aad: string | undefined): Buffer {
  // keyId cannot contain ".", so the boundary between it and the caller's aad is unambiguous.
  return Buffer.from(`${VERSION}.${keyId}.${aad ?? ""}`, "utf8");
}

function parse(sealed: string): { keyId: string; iv: Uint8Array; body: Uint8Array } {
  const parts = sealed.split(".");
  if (parts.length !== 4 || parts[0] !== VERSION || !KEY_ID_SHAPE.test(parts[1])) throw new SealError();
  let iv: Uint8Array;
  let body: Uint8Array;
  try {
    // Strict decoding: Buffer's base64url decoder silently skips invalid characters.
    iv = base64urlnopad.decode(parts[2]);
    body = base64urlnopad.decode(parts[3]);
  } catch {
    throw new SealError();
  }
  if (iv.length !== IV_BYTES || body.length < TAG_BYTES) throw new SealError();
  return { keyId: parts[1], iv, body };
}
