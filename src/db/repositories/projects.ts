import type { Queryable } from "../db.js";
import type { Page } from "./organizations.js";

export interface ProjectRecord {
  id: string;
  organizationId: string;
  name: string;
  description: string | null;
  environments: { id: string; name: "live" | "sandbox" }[];
  createdAt: Date;
  updatedAt: Date;
}

export interface EnvironmentRecord {
  id: string;
  projectId: string;
  organizationId: string;
  name: "live" | "sandbox";
  /** The stored settings document (sections as saved; defaults are applied by the domain). */
  settings: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

const SELECT_PROJECT = `
  SELECT p.*, coalesce((SELECT json_agg(json_build_object('id', e.id, 'name', e.name) ORDER BY e.name)
                        FROM environments e WHERE e.project_id = p.id), '[]') AS environments
  FROM projects p`;

export async function listProjects(q: Queryable, organizationId: string, page: Page): Promise<{ projects: ProjectRecord[]; count: number }> {
  const rows = await q.any(`${SELECT_PROJECT} WHERE p.organization_id = $1 ORDER BY p.created_at, p.id LIMIT $2 OFFSET $3`, [
    organizationId,
    page.limit,
    page.offset,
  ]);
  const { n } = await q.one<{ n: number }>("SELECT count(*)::int AS n FROM projects WHERE organization_id = $1", [organizationId]);
  return { projects: rows.map(toProject), count: n };
}

export async function findProject(q: Queryable, organizationId: string, projectId: string): Promise<ProjectRecord | null> {
  const row = await q.oneOrNone(`${SELECT_PROJECT} WHERE p.organization_id = $1 AND p.id = $2`, [organizationId, projectId]);
  return row ? toProject(row) : null;
}

export async function updateProject(
  q: Queryable,
  organizationId: string,
  projectId: string,
  patch: { name?: string; description?: string | null },
): Promise<boolean> {
  const r = await q.result(
    `UPDATE projects SET name = CASE WHEN $3 THEN $4 ELSE name END,
       description = CASE WHEN $5 THEN $6 ELSE description END, updated_at = now()
     WHERE organization_id = $1 AND id = $2`,
    [organizationId, projectId, patch.name !== undefined, patch.name ?? null, patch.description !== undefined, patch.description ?? null],
  );
  return r.rowCount === 1;
}

/** Deletes the project with its environments and everything in them (ON DELETE CASCADE). */
export async function deleteProject(q: Queryable, organizationId: string, projectId: string): Promise<boolean> {
  return (await q.result("DELETE FROM projects WHERE organization_id = $1 AND id = $2", [organizationId, projectId])).rowCount === 1;
}

/** Hashes of the tokens bound to the project's environments (to drop their cached principals). */
export async function projectTokenHashes(q: Queryable, organizationId: string, projectId: string): Promise<Buffer[]> {
  const rows = await q.any<{ token_hash: Buffer }>(
    `SELECT t.token_hash FROM api_tokens t JOIN environments e ON e.id = t.environment_id
     WHERE t.organization_id = $1 AND e.project_id = $2`,
    [organizationId, projectId],
  );
  return rows.map((r) => r.token_hash);
}

export async function listProjectEnvironments(
  q: Queryable,
  organizationId: string,
  projectId: string,
  page: Page,
): Promise<{ environments: EnvironmentRecord[]; count: number }> {
  const rows = await q.any(
    "SELECT * FROM environments WHERE organization_id = $1 AND project_id = $2 ORDER BY name, id LIMIT $3 OFFSET $4",
    [organizationId, projectId, page.limit, page.offset],
  );
  const { n } = await q.one<{ n: number }>("SELECT count(*)::int AS n FROM environments WHERE organization_id = $1 AND project_id = $2", [
    organizationId,
    projectId,
  ]);
  return { environments: rows.map(toEnvironment), count: n };
}

export async function findEnvironmentRecord(q: Queryable, environmentId: string, opts: { forUpdate?: boolean } = {}): Promise<EnvironmentRecord | null> {
  const row = await q.oneOrNone(`SELECT * FROM environments WHERE id = $1${opts.forUpdate ? " FOR UPDATE" : ""}`, [environmentId]);
  return row ? toEnvironment(row) : null;
}

export async function updateEnvironmentSettings(q: Queryable, environmentId: string, settings: Record<string, unknown>): Promise<EnvironmentRecord> {
  const row = await q.one("UPDATE environments SET settings = $2, updated_at = now() WHERE id = $1 RETURNING *", [environmentId, settings]);
  return toEnvironment(row);
}

/** Every environment of every organization the account is a member of. */
export async function membershipEnvironmentIds(q: Queryable, accountId: string): Promise<string[]> {
  const rows = await q.any<{ id: string }>(
    `SELECT e.id FROM members m JOIN environments e ON e.organization_id = m.organization_id
     WHERE m.account_id = $1 ORDER BY e.created_at, e.id`,
    [accountId],
  );
  return rows.map((r) => r.id);
}

function toProject(r: Record<string, any>): ProjectRecord {
  return {
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    description: r.description,
    environments: r.environments,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toEnvironment(r: Record<string, any>): EnvironmentRecord {
  return {
    id: r.id,
    projectId: r.project_id,
    organizationId: r.organization_id,
    name: r.name,
    settings: r.settings ?? {},
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
