import { conflict } from "../../errors.js";
import { keyIdFor, parseRsaPublicKey } from "../../crypto/rsa-public-key.js";
import { insertEncryptionKey } from "../../db/repositories/encryption-keys.js";
import type { Deps } from "../deps.js";

/**
 * Registers an RSA public key that delegated-access payloads are encrypted to. The key must parse as an RSA
 * public key; it is stored as SPKI PEM under a generated kid (its RFC 7638 thumbprint, 43 characters), so
 * the same key registered twice is recognised and refused with 409.
 */
export async function registerEncryptionKey(
  deps: Deps,
  environmentId: string,
  input: { publicKey: string; alg: string; type: string },
) {
  const parsed = parseRsaPublicKey(input.publicKey);
  const kid = await keyIdFor(parsed.spkiPem);
  const created = await insertEncryptionKey(deps.db, environmentId, { kid, publicKey: parsed.spkiPem, alg: input.alg, type: input.type });
  if (!created) throw conflict("encryption_key_already_registered", `this public key is already registered (kid ${kid})`);
  return created;
}
