import { conflict, notFound } from "../../errors.js";
import { keyIdFor, parseRsaPublicKey } from "../../crypto/rsa-public-key.js";
import { countEncryptionKeys, findEncryptionKey, insertEncryptionKey, listEncryptionKeys } from "../../db/repositories/encryption-keys.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";

/**
 * Registers an RSA public key that delegated-access payloads are encrypted to. The key must parse as an RSA
 * public key; it is stored as SPKI PEM under a generated kid (its RFC 7638 thumbprint, 43 characters), so
 * the same key registered twice is recognised and refused with 409.
 */
export async function registerEncryptionKey(
  deps: Pick<Deps, "db">,
  access: EnvironmentAccess,
  input: { publicKey: string; alg: string; type: string },
) {
  const parsed = parseRsaPublicKey(input.publicKey);
  const kid = await keyIdFor(parsed.spkiPem);
  return audited(deps, access, async (t, record) => {
    const created = await insertEncryptionKey(t, access.environmentId, { kid, publicKey: parsed.spkiPem, alg: input.alg, type: input.type });
    if (!created) throw conflict("encryption_key_already_registered", `this public key is already registered (kid ${kid})`);
    await record({
      action: "encryption_public_key.created",
      resourceType: "encryption_public_key",
      resourceId: created.id,
      after: { kid: created.kid, alg: created.alg, type: created.type, modulusBits: parsed.modulusBits },
    });
    return created;
  });
}

export async function listEncryptionKeysPage(deps: Pick<Deps, "db">, access: EnvironmentAccess, page: { offset: number; limit: number }) {
  const [keys, count] = await Promise.all([
    listEncryptionKeys(deps.db, access.environmentId, page),
    countEncryptionKeys(deps.db, access.environmentId),
  ]);
  return { keys, count };
}

/** By the key's id (UUID): the path parameter keyId is the id, not the kid. */
export async function getEncryptionKey(deps: Pick<Deps, "db">, access: EnvironmentAccess, keyId: string) {
  const key = await findEncryptionKey(deps.db, access.environmentId, keyId);
  if (!key) throw notFound("encryption public key");
  return key;
}
