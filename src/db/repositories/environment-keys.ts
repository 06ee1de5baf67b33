import type { Queryable } from "../db.js";

export interface SigningKeyRecord {
  id: string;
  environmentId: string;
  kid: string;
  alg: string;
  publicKeyPem: string;
  publicJwk: Record<string, string>;
  /** Sealed PKCS#8 PEM (aad: signingKeyAad(id)); never leaves the service. */
  privateKeySealed: string;
  createdAt: Date;
}

export async function findSigningKey(q: Queryable, environmentId: string): Promise<SigningKeyRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM environment_signing_keys WHERE environment_id = $1", [environmentId]);
  return row ? toKey(row) : null;
}

/** Inserts the key unless the environment has one already (concurrent first reads: one wins). */
export async function insertSigningKeyIfAbsent(q: Queryable, environmentId: string, k: Omit<SigningKeyRecord, "environmentId" | "createdAt">): Promise<void> {
  await q.none(
    `INSERT INTO environment_signing_keys (id, environment_id, kid, alg, public_key_pem, public_jwk, private_key_sealed)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (environment_id) DO NOTHING`,
    [k.id, environmentId, k.kid, k.alg, k.publicKeyPem, k.publicJwk, k.privateKeySealed],
  );
}

function toKey(r: Record<string, any>): SigningKeyRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    kid: r.kid,
    alg: r.alg,
    publicKeyPem: r.public_key_pem,
    publicJwk: r.public_jwk,
    privateKeySealed: r.private_key_sealed,
    createdAt: r.created_at,
  };
}
