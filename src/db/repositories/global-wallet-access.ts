import type { Queryable } from "../db.js";
import { setEnabledAt } from "./enablement.js";

export type AccessMode = "allowList" | "blockList";
export type DomainType = "allow" | "block";

export interface AccessControlRecord {
  id: string;
  environmentId: string;
  mode: AccessMode;
  enabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface AccessDomainRecord {
  id: string;
  environmentId: string;
  accessControlId: string;
  domain: string;
  type: DomainType;
  createdAt: Date;
  updatedAt: Date;
}

/** Inserts the access control, enabled at creation; a second one for the environment violates the unique index. */
export async function insertAccessControl(q: Queryable, environmentId: string, id: string, mode: AccessMode): Promise<AccessControlRecord> {
  const row = await q.one(
    `INSERT INTO global_wallet_access_controls (id, environment_id, mode, enabled_at) VALUES ($1, $2, $3, now()) RETURNING *`,
    [id, environmentId, mode],
  );
  return toAccessControl(row);
}

export async function findAccessControl(q: Queryable, environmentId: string): Promise<AccessControlRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM global_wallet_access_controls WHERE environment_id = $1", [environmentId]);
  return row ? toAccessControl(row) : null;
}

export async function updateAccessControlMode(q: Queryable, environmentId: string, mode: AccessMode): Promise<AccessControlRecord | null> {
  const row = await q.oneOrNone(
    "UPDATE global_wallet_access_controls SET mode = $2, updated_at = now() WHERE environment_id = $1 RETURNING *",
    [environmentId, mode],
  );
  return row ? toAccessControl(row) : null;
}

export async function setAccessControlEnabled(q: Queryable, environmentId: string, enabled: boolean): Promise<AccessControlRecord | null> {
  const row = await setEnabledAt(q, "global_wallet_access_controls", environmentId, null, enabled);
  return row ? toAccessControl(row) : null;
}

export async function insertAccessDomain(
  q: Queryable,
  environmentId: string,
  d: { id: string; accessControlId: string; domain: string; type: DomainType },
): Promise<AccessDomainRecord> {
  const row = await q.one(
    `INSERT INTO global_wallet_access_control_domains (id, environment_id, access_control_id, domain, type)
     VALUES ($1, $2, $3, $4, $5) RETURNING *`,
    [d.id, environmentId, d.accessControlId, d.domain, d.type],
  );
  return toDomain(row);
}

export async function listAccessDomains(
  q: Queryable,
  environmentId: string,
  page: { offset: number; limit: number },
): Promise<{ domains: AccessDomainRecord[]; count: number }> {
  const rows = await q.any(
    `SELECT *, count(*) OVER () AS total FROM global_wallet_access_control_domains WHERE environment_id = $1
     ORDER BY created_at, id OFFSET $2 LIMIT $3`,
    [environmentId, page.offset, page.limit],
  );
  const count =
    rows.length > 0
      ? Number(rows[0].total)
      : (await q.one<{ n: number }>("SELECT count(*)::int AS n FROM global_wallet_access_control_domains WHERE environment_id = $1", [environmentId])).n;
  return { domains: rows.map(toDomain), count };
}

/**
 * The entries that could match a hostname: the hostname itself and a wildcard over each of its parent
 * domains (a.b.example.com -> *.b.example.com, *.example.com, *.com).
 */
export async function findMatchingAccessDomains(q: Queryable, environmentId: string, candidates: string[]): Promise<AccessDomainRecord[]> {
  const rows = await q.any(
    "SELECT * FROM global_wallet_access_control_domains WHERE environment_id = $1 AND domain = ANY($2::text[])",
    [environmentId, candidates],
  );
  return rows.map(toDomain);
}

export async function deleteAccessDomain(q: Queryable, environmentId: string, id: string): Promise<AccessDomainRecord | null> {
  const row = await q.oneOrNone("DELETE FROM global_wallet_access_control_domains WHERE environment_id = $1 AND id = $2 RETURNING *", [
    environmentId,
    id,
  ]);
  return row ? toDomain(row) : null;
}

function toAccessControl(r: Record<string, any>): AccessControlRecord {
  return { id: r.id, environmentId: r.environment_id, mode: r.mode, enabledAt: r.enabled_at, createdAt: r.created_at, updatedAt: r.updated_at };
}

function toDomain(r: Record<string, any>): AccessDomainRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    accessControlId: r.access_control_id,
    domain: r.domain,
    type: r.type,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
