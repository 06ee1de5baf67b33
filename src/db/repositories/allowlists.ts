import type { Queryable } from "../db.js";
import { escapeLike } from "../text-match.js";
import { setEnabledAt } from "./enablement.js";

export interface AllowlistRecord {
  id: string;
  environmentId: string;
  name: string;
  outcome: string;
  scope: string | null;
  enabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface AllowlistEntryRecord {
  id: string;
  environmentId: string;
  allowlistId: string;
  type: string;
  value: string;
  chain: string | null;
  alias: string | null;
  createdAt: Date;
}

export async function insertAllowlist(
  q: Queryable,
  environmentId: string,
  a: { id: string; name: string; outcome: string; scope: string | null },
): Promise<AllowlistRecord> {
  const row = await q.one(
    "INSERT INTO allowlists (id, environment_id, name, outcome, scope) VALUES ($1, $2, $3, $4, $5) RETURNING *",
    [a.id, environmentId, a.name, a.outcome, a.scope],
  );
  return toAllowlist(row);
}

export async function listAllowlists(
  q: Queryable,
  environmentId: string,
  page: { offset: number; limit: number },
): Promise<{ allowlists: AllowlistRecord[]; count: number }> {
  const rows = await q.any(
    "SELECT *, count(*) OVER () AS total FROM allowlists WHERE environment_id = $1 ORDER BY created_at, id OFFSET $2 LIMIT $3",
    [environmentId, page.offset, page.limit],
  );
  const count = rows.length > 0 ? Number(rows[0].total) : (await q.one("SELECT count(*)::int AS n FROM allowlists WHERE environment_id = $1", [environmentId])).n;
  return { allowlists: rows.map(toAllowlist), count };
}

/** The allowlist, locked for the rest of the transaction when `forUpdate`. */
export async function findAllowlist(q: Queryable, environmentId: string, id: string, forUpdate = false): Promise<AllowlistRecord | null> {
  const row = await q.oneOrNone(`SELECT * FROM allowlists WHERE environment_id = $1 AND id = $2${forUpdate ? " FOR UPDATE" : ""}`, [
    environmentId,
    id,
  ]);
  return row ? toAllowlist(row) : null;
}

export async function updateAllowlist(
  q: Queryable,
  environmentId: string,
  id: string,
  a: { name: string; outcome: string; scope: string | null },
): Promise<AllowlistRecord | null> {
  const row = await q.oneOrNone(
    "UPDATE allowlists SET name = $3, outcome = $4, scope = $5, updated_at = now() WHERE environment_id = $1 AND id = $2 RETURNING *",
    [environmentId, id, a.name, a.outcome, a.scope],
  );
  return row ? toAllowlist(row) : null;
}

/** Enables (keeping the first enabling time) or disables (enabledAt becomes null). */
export async function setAllowlistEnabled(q: Queryable, environmentId: string, id: string, enabled: boolean): Promise<AllowlistRecord | null> {
  const row = await setEnabledAt(q, "allowlists", environmentId, { id }, enabled);
  return row ? toAllowlist(row) : null;
}

export async function deleteAllowlist(q: Queryable, environmentId: string, id: string): Promise<AllowlistRecord | null> {
  const row = await q.oneOrNone("DELETE FROM allowlists WHERE environment_id = $1 AND id = $2 RETURNING *", [environmentId, id]);
  return row ? toAllowlist(row) : null;
}

export async function insertAllowlistEntry(
  q: Queryable,
  environmentId: string,
  e: { id: string; allowlistId: string; type: string; value: string; chain: string | null; alias: string | null },
): Promise<AllowlistEntryRecord> {
  const row = await q.one(
    `INSERT INTO allowlist_entries (id, environment_id, allowlist_id, type, value, chain, alias)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [e.id, environmentId, e.allowlistId, e.type, e.value, e.chain, e.alias],
  );
  return toEntry(row);
}

export async function listAllowlistEntries(
  q: Queryable,
  environmentId: string,
  allowlistId: string,
  opts: { offset: number; limit: number; query: string | null },
): Promise<{ entries: AllowlistEntryRecord[]; count: number }> {
  const where = `environment_id = $1 AND allowlist_id = $2 AND ($3::text IS NULL OR value ILIKE $3 OR alias ILIKE $3)`;
  const pattern = opts.query ? `%${escapeLike(opts.query)}%` : null;
  const rows = await q.any(`SELECT * FROM allowlist_entries WHERE ${where} ORDER BY created_at, id OFFSET $4 LIMIT $5`, [
    environmentId,
    allowlistId,
    pattern,
    opts.offset,
    opts.limit,
  ]);
  const { n } = await q.one(`SELECT count(*)::int AS n FROM allowlist_entries WHERE ${where}`, [environmentId, allowlistId, pattern]);
  return { entries: rows.map(toEntry), count: n };
}

export async function deleteAllowlistEntry(q: Queryable, environmentId: string, id: string): Promise<AllowlistEntryRecord | null> {
  const row = await q.oneOrNone("DELETE FROM allowlist_entries WHERE environment_id = $1 AND id = $2 RETURNING *", [environmentId, id]);
  return row ? toEntry(row) : null;
}

function toAllowlist(r: Record<string, any>): AllowlistRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    name: r.name,
    outcome: r.outcome,
    scope: r.scope,
    enabledAt: r.enabled_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toEntry(r: Record<string, any>): AllowlistEntryRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    allowlistId: r.allowlist_id,
    type: r.type,
    value: r.value,
    chain: r.chain,
    alias: r.alias,
    createdAt: r.created_at,
  };
}
