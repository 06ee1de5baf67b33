import { base64urlnopad } from "@scure/base";
import { createSealer, type Sealer } from "../../crypto/seal.js";
import { badRequest, unprocessable } from "../../errors.js";

/**
 * A key share for a holder other than the server (the user's device, a backup) is only ever handled
 * encrypted to that holder. Until the device protocol exists (issue 14, later), the holder's key is an
 * AES-256-GCM key the caller hands in with the operation. The envelope is the project's sealed value
 * (src/crypto/seal.ts, `v1.holder.<iv>.<ciphertext || tag>`) under that key, whose associated data binds it
 * to one share set and holder index: a share moved to another wallet, set or index does not open there.
 */

/** A holder key as callers pass it: 32 bytes, base64url without padding. */
function parseHolderKey(encoded: string): Buffer {
  let key: Uint8Array;
  try {
    key = base64urlnopad.decode(encoded);
  } catch {
    throw badRequest("invalid_holder_key", "a holder key is 32 bytes, base64url without padding");
  }
  if (key.length !== 32) throw badRequest("invalid_holder_key", "a holder key is 32 bytes, base64url without padding");
  return Buffer.from(key);
}

const holderKeyAad = (walletId: string, holderIndex: number) => `waas-holder-key:${walletId}:${holderIndex}`;

/** Seals a holder's key (base64url, 32 bytes) for an operation's input: it is written to the workflow history. */
export function sealHolderKey(sealer: Sealer, walletId: string, holderIndex: number, key: string): string {
  parseHolderKey(key);
  return sealer.seal(key, holderKeyAad(walletId, holderIndex));
}

/** Opens a holder key sealed for this wallet and holder; anything else answers 400 invalid_holder_key. */
export function openHolderKey(sealer: Sealer, walletId: string, holderIndex: number, sealedKey: string): Buffer {
  let key: string;
  try {
    key = sealer.open(sealedKey, holderKeyAad(walletId, holderIndex));
  } catch {
    throw badRequest("invalid_holder_key", "the holder key was not sealed for this wallet and holder");
  }
  return parseHolderKey(key);
}

const associatedData = (shareSetId: string, holderIndex: number) => `waas-share:${shareSetId}:${holderIndex}`;

/** The project's AES-256-GCM envelope (src/crypto/seal.ts) under the holder's own key. */
const holderSealer = (key: Buffer) => createSealer([{ id: "holder", key }]);

export function encryptForHolder(key: Buffer, shareSetId: string, holderIndex: number, shareHex: string): string {
  return holderSealer(key).seal(shareHex, associatedData(shareSetId, holderIndex));
}

/** Opens a holder's share; a wrong key, a tampered envelope or one of another set/index all answer the same. */
export function decryptForHolder(key: Buffer, shareSetId: string, holderIndex: number, envelope: string): string {
  try {
    return holderSealer(key).open(envelope, associatedData(shareSetId, holderIndex));
  } catch {
    throw unprocessable("key_share_not_decrypted", `the key share of holder ${holderIndex} cannot be decrypted with the key given`, { holderIndex });
  }
}
