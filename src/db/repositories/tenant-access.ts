import type { Queryable } from "../db.js";

/**
 * The lookups behind tenant resolution (src/rpc/interceptors/tenancy.ts): each finds the tenant a call names
 * together with the calling account's membership of its organization, in one query.
 */

/**
 * Tables whose rows can be addressed by id alone (the deprecated and flat paths such as
 * /settings/providers/{providerId}); each has an environment_id column. Listed so that no declaration can
 * name an arbitrary table (the table name is interpolated below).
 */
export const ENVIRONMENT_SCOPED_TABLES: ReadonlySet<string> = new Set([
  "api_tokens",
  "users",
  "sessions",
  "verified_credentials",
  "custom_fields",
  "wallets",
  "providers",
  "allowlists",
  "allowlist_entries",
  "gates",
  "exchanges",
  "origins",
  "deeplink_urls",
  "custom_hostnames",
  "exports",
  "webhooks",
]);

/** The same for rows that belong to an organization (each has an organization_id column). */
export const ORGANIZATION_SCOPED_TABLES: ReadonlySet<string> = new Set(["members", "invites", "custom_networks", "sso_providers"]);

/** The caller's membership of a tenant's organization: both null when the account is not a member. */
export interface Membership {
  memberId: string | null;
  role: string | null;
}

export interface EnvironmentTenant extends Membership {
  organizationId: string;
  projectId: string;
  name: "live" | "sandbox";
}

export interface ProjectTenant extends Membership {
  organizationId: string;
}

const MEMBER_OF = (alias: string) => `LEFT JOIN members m ON m.organization_id = ${alias}.organization_id AND m.account_id = $2`;

/** An environment and the account's membership of its organization (accountId null: no membership asked). */
export async function findEnvironmentTenant(q: Queryable, environmentId: string, accountId: string | null): Promise<EnvironmentTenant | null> {
  const row = await q.oneOrNone<{ organization_id: string; project_id: string; name: "live" | "sandbox"; member_id: string | null; role: string | null }>(
    `SELECT e.organization_id, e.project_id, e.name, m.id AS member_id, m.role FROM environments e ${MEMBER_OF("e")} WHERE e.id = $1`,
    [environmentId, accountId],
  );
  return row && { organizationId: row.organization_id, projectId: row.project_id, name: row.name, memberId: row.member_id, role: row.role };
}

export async function findProjectTenant(q: Queryable, projectId: string, accountId: string): Promise<ProjectTenant | null> {
  const row = await q.oneOrNone<{ organization_id: string; member_id: string | null; role: string | null }>(
    `SELECT pr.organization_id, m.id AS member_id, m.role FROM projects pr ${MEMBER_OF("pr")} WHERE pr.id = $1`,
    [projectId, accountId],
  );
  return row && { organizationId: row.organization_id, memberId: row.member_id, role: row.role };
}

export async function findMembership(q: Queryable, organizationId: string, accountId: string): Promise<Membership> {
  const row = await q.oneOrNone<{ id: string; role: string }>("SELECT id, role FROM members WHERE organization_id = $1 AND account_id = $2", [
    organizationId,
    accountId,
  ]);
  return { memberId: row?.id ?? null, role: row?.role ?? null };
}

/** The environment a row of an environment-scoped table lives in, or null when there is no such row. */
export async function findRowEnvironmentId(q: Queryable, table: string, id: string): Promise<string | null> {
  if (!ENVIRONMENT_SCOPED_TABLES.has(table)) throw new Error(`${table} is not an environment-scoped table`);
  const row = await q.oneOrNone<{ environment_id: string }>(`SELECT environment_id FROM ${table} WHERE id = $1`, [id]);
  return row?.environment_id ?? null;
}

/** The organization a row of an organization-scoped table belongs to, or null when there is no such row. */
export async function findRowOrganizationId(q: Queryable, table: string, id: string): Promise<string | null> {
  if (!ORGANIZATION_SCOPED_TABLES.has(table)) throw new Error(`${table} is not an organization-scoped table`);
  const row = await q.oneOrNone<{ organization_id: string }>(`SELECT organization_id FROM ${table} WHERE id = $1`, [id]);
  return row?.organization_id ?? null;
}
