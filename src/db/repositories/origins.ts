import type { Queryable } from "../db.js";
import { candidatePatterns, normalizeOrigin } from "../../domain/origins/origin.js";

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

/**
 * The SDK surface's CORS check: true when `origin` (an Origin header value) is configured for the
 * environment, exactly or through a "*." pattern of one of its parent domains.
 */
export async function isOriginAllowed(q: Queryable, environmentId: string, origin: string): Promise<boolean> {
  const parsed = normalizeOrigin(origin);
  if (!parsed.ok || parsed.origin.includes("*")) return false;
  const row = await q.oneOrNone("SELECT 1 FROM origins WHERE environment_id = $1 AND origin = ANY($2::text[]) LIMIT 1", [
    environmentId,
    candidatePatterns(parsed.origin),
  ]);
  return row !== null;
}
