import { randomUUID } from "node:crypto";
import type { Queryable } from "../db.js";

export interface EncryptionKeyRecord {
  id: string;
  environmentId: string;
  kid: string;
  publicKey: string;
  alg: string;
  type: string;
  status: string;
  createdAt: Date;
  updatedAt: Date;
}

/** Inserts a key; null when the environment already has a key with this kid (same key registered twice). */
export async function insertEncryptionKey(
  q: Queryable,
  environmentId: string,
  k: { kid: string; publicKey: string; alg: string; type: string },
): Promise<EncryptionKeyRecord | null> {
  const row = await q.oneOrNone(
    `INSERT INTO encryption_public_keys (id, environment_id, kid, public_key, alg, type)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (environment_id, kid) DO NOTHING RETURNING *`,
    [randomUUID(), environmentId, k.kid, k.publicKey, k.alg, k.type],
  );
  return row ? toKey(row) : null;
}

/** The environment's keys, oldest first (one page of them when `page` is given). */
export async function listEncryptionKeys(
  q: Queryable,
  environmentId: string,
  page: { offset: number; limit: number } = { offset: 0, limit: 1000 },
): Promise<EncryptionKeyRecord[]> {
  const rows = await q.any(
    "SELECT * FROM encryption_public_keys WHERE environment_id = $1 ORDER BY created_at, id OFFSET $2 LIMIT $3",
    [environmentId, page.offset, page.limit],
  );
  return rows.map(toKey);
}

export async function countEncryptionKeys(q: Queryable, environmentId: string): Promise<number> {
  const { n } = await q.one<{ n: number }>("SELECT count(*) AS n FROM encryption_public_keys WHERE environment_id = $1", [environmentId]);
  return n;
}

export async function findEncryptionKey(q: Queryable, environmentId: string, id: string): Promise<EncryptionKeyRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM encryption_public_keys WHERE environment_id = $1 AND id = $2", [environmentId, id]);
  return row ? toKey(row) : null;
}

function toKey(r: Record<string, any>): EncryptionKeyRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    kid: r.kid,
    publicKey: r.public_key,
    alg: r.alg,
    type: r.type,
    status: r.status,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
