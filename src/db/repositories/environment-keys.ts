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
  /** Set once a newer key replaced it; it stays published until publishedUntil. */
  retiredAt: Date | null;
  publishedUntil: Date | null;
}

/** The environment's current signing key (the one that signs new tokens). */
export async function findSigningKey(q: Queryable, environmentId: string): Promise<SigningKeyRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM environment_signing_keys WHERE environment_id = $1 AND retired_at IS NULL", [environmentId]);
  return row ? toKey(row) : null;
}

/** The keys whose tokens may still be valid: the current one and retired ones still published; newest first. */
export async function findPublishedKeys(q: Queryable, environmentId: string): Promise<SigningKeyRecord[]> {
  const rows = await q.any(
    `SELECT * FROM environment_signing_keys
     WHERE environment_id = $1 AND (retired_at IS NULL OR published_until > now()) ORDER BY created_at DESC`,
    [environmentId],
  );
  return rows.map(toKey);
}

/**
 * Retires the current key (published until `publishedUntil`, when its last token expires) and makes `next`
 * current, in the caller's transaction. Returns false when the environment had no current key to retire.
 */
export async function rotateSigningKey(
  q: Queryable,
  environmentId: string,
  next: Omit<SigningKeyRecord, "environmentId" | "createdAt" | "retiredAt" | "publishedUntil">,
  publishedUntil: Date,
): Promise<boolean> {
  const retired = await q.result(
    "UPDATE environment_signing_keys SET retired_at = now(), published_until = $2, updated_at = now() WHERE environment_id = $1 AND retired_at IS NULL",
    [environmentId, publishedUntil],
  );
  await insertSigningKeyIfAbsent(q, environmentId, next);
  return retired.rowCount > 0;
}

/**
 * The next environments (in id order, after `after`) whose current key was made before `createdBefore`: the
 * ones a rotation of every environment that started at `createdBefore` has not rotated yet.
 */
export async function environmentsWithKeyCreatedBefore(q: Queryable, createdBefore: Date, after: string | null, limit: number): Promise<string[]> {
  const rows = await q.any<{ environment_id: string }>(
    `SELECT environment_id FROM environment_signing_keys
     WHERE retired_at IS NULL AND created_at < $1 AND ($2::uuid IS NULL OR environment_id > $2::uuid)
     ORDER BY environment_id LIMIT $3`,
    [createdBefore, after, limit],
  );
  return rows.map((r) => r.environment_id);
}

/** How many environments `environmentsWithKeyCreatedBefore` has left to go through. */
export async function countEnvironmentsWithKeyCreatedBefore(q: Queryable, createdBefore: Date): Promise<number> {
  return (await q.one("SELECT count(*)::int AS n FROM environment_signing_keys WHERE retired_at IS NULL AND created_at < $1", [createdBefore])).n;
}

/** Drops the environment's retired keys whose tokens have all expired (no longer published, never used again). */
export async function deleteExpiredSigningKeys(q: Queryable, environmentId: string): Promise<number> {
  return (await q.result("DELETE FROM environment_signing_keys WHERE environment_id = $1 AND retired_at IS NOT NULL AND published_until <= now()", [environmentId])).rowCount;
}

/** Inserts the key unless the environment has one already (concurrent first reads: one wins). */
export async function insertSigningKeyIfAbsent(
  q: Queryable,
  environmentId: string,
  k: Omit<SigningKeyRecord, "environmentId" | "createdAt" | "retiredAt" | "publishedUntil">,
): Promise<void> {
  await q.none(
    `INSERT INTO environment_signing_keys (id, environment_id, kid, alg, public_key_pem, public_jwk, private_key_sealed)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (environment_id) WHERE retired_at IS NULL DO NOTHING`,
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
    retiredAt: r.retired_at,
    publishedUntil: r.published_until,
  };
}
