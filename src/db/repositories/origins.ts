import type { Queryable } from "../db.js";

export interface OriginRecord {
  id: string;
  environmentId: string;
  origin: string;
  createdAt: Date;
}

const toOrigin = (r: Record<string, any>): OriginRecord => ({ id: r.id, environmentId: r.environment_id, origin: r.origin, createdAt: r.created_at });

export async function listOrigins(q: Queryable, environmentId: string, page: { offset: number; limit: number }) {
  const rows = await q.any("SELECT * FROM origins WHERE environment_id = $1 ORDER BY created_at, id OFFSET $2 LIMIT $3", [
    environmentId,
    page.offset,
    page.limit,
  ]);
  const { n } = await q.one<{ n: number }>("SELECT count(*)::int AS n FROM origins WHERE environment_id = $1", [environmentId]);
  return { items: rows.map(toOrigin), count: n };
}

export async function insertOrigin(q: Queryable, environmentId: string, id: string, origin: string): Promise<OriginRecord> {
  return toOrigin(await q.one("INSERT INTO origins (id, environment_id, origin) VALUES ($1, $2, $3) RETURNING *", [id, environmentId, origin]));
}

export async function deleteOrigin(q: Queryable, environmentId: string, id: string): Promise<OriginRecord | null> {
  const row = await q.oneOrNone("DELETE FROM origins WHERE environment_id = $1 AND id = $2 RETURNING *", [environmentId, id]);
  return row ? toOrigin(row) : null;
}

/** True when any of `patterns` (exact origins or "*." patterns) is stored for the environment. */
export async function anyOriginStored(q: Queryable, environmentId: string, patterns: readonly string[]): Promise<boolean> {
  const row = await q.oneOrNone("SELECT 1 FROM origins WHERE environment_id = $1 AND origin = ANY($2::text[]) LIMIT 1", [environmentId, patterns]);
  return row !== null;
}

/** Every origin pattern of the environment (at most MAX_ORIGINS of them), for checks that run per request. */
export async function allOriginPatterns(q: Queryable, environmentId: string): Promise<string[]> {
  const rows = await q.any<{ origin: string }>("SELECT origin FROM origins WHERE environment_id = $1", [environmentId]);
  return rows.map((r) => r.origin);
}
