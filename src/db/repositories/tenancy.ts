import { randomUUID } from "node:crypto";
import type { Queryable } from "../db.js";

export interface EnvironmentRef {
  id: string;
  projectId: string;
  organizationId: string;
  name: "live" | "sandbox";
}

export interface Member {
  id: string;
  organizationId: string;
  email: string | null;
  alias: string | null;
  firstName: string | null;
  lastName: string | null;
  role: string;
  accountId: string;
  createdAt: Date;
  updatedAt: Date;
}

export async function insertOrganization(q: Queryable, name: string): Promise<{ id: string; name: string }> {
  const id = randomUUID();
  await q.none("INSERT INTO organizations (id, name) VALUES ($1, $2)", [id, name]);
  return { id, name };
}

export async function insertProject(q: Queryable, organizationId: string, name: string, description: string | null = null): Promise<{ id: string }> {
  const id = randomUUID();
  await q.none("INSERT INTO projects (id, organization_id, name, description) VALUES ($1, $2, $3, $4)", [id, organizationId, name, description]);
  return { id };
}

export async function insertEnvironment(
  q: Queryable,
  organizationId: string,
  projectId: string,
  name: "live" | "sandbox",
  settings: Record<string, unknown> = {},
): Promise<EnvironmentRef> {
  const id = randomUUID();
  await q.none(
    `INSERT INTO environments (id, organization_id, project_id, name, settings)
     SELECT $1, $2, p.id, $4, $5 FROM projects p WHERE p.id = $3 AND p.organization_id = $2`,
    [id, organizationId, projectId, name, settings],
  );
  return { id, projectId, organizationId, name };
}

export interface Account {
  id: string;
  email: string | null;
  alias: string | null;
  firstName: string | null;
  lastName: string | null;
}

/** The account with this e-mail, created if absent (an e-mail names one person across organizations). */
export async function findOrCreateAccount(
  q: Queryable,
  a: { email?: string; alias?: string; firstName?: string; lastName?: string },
): Promise<Account> {
  if (a.email) {
    const found = await q.oneOrNone("SELECT * FROM accounts WHERE lower(email) = lower($1)", [a.email]);
    if (found) return toAccount(found);
  }
  const row = await q.one(
    `INSERT INTO accounts (id, email, alias, first_name, last_name) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (lower(email)) WHERE email IS NOT NULL DO UPDATE SET updated_at = accounts.updated_at RETURNING *`,
    [randomUUID(), a.email ?? null, a.alias ?? null, a.firstName ?? null, a.lastName ?? null],
  );
  return toAccount(row);
}

export async function findAccount(q: Queryable, accountId: string): Promise<Account | null> {
  const row = await q.oneOrNone("SELECT * FROM accounts WHERE id = $1", [accountId]);
  return row ? toAccount(row) : null;
}

function toAccount(r: Record<string, any>): Account {
  return { id: r.id, email: r.email, alias: r.alias, firstName: r.first_name, lastName: r.last_name };
}

/** Adds the account to the organization; the member's profile starts as the account's. */
export async function insertMember(q: Queryable, organizationId: string, account: Account, role: string): Promise<Member> {
  const row = await q.one(
    `INSERT INTO members (id, organization_id, account_id, email, alias, first_name, last_name, role)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [randomUUID(), organizationId, account.id, account.email, account.alias, account.firstName, account.lastName, role],
  );
  return toMember(row);
}

export async function findMember(q: Queryable, organizationId: string, memberId: string): Promise<Member | null> {
  const row = await q.oneOrNone("SELECT * FROM members WHERE organization_id = $1 AND id = $2", [organizationId, memberId]);
  return row ? toMember(row) : null;
}

export async function findMemberByEmail(q: Queryable, organizationId: string, email: string): Promise<Member | null> {
  const row = await q.oneOrNone("SELECT * FROM members WHERE organization_id = $1 AND lower(email) = lower($2)", [
    organizationId,
    email,
  ]);
  return row ? toMember(row) : null;
}

export function toMember(r: Record<string, any>): Member {
  return {
    id: r.id,
    organizationId: r.organization_id,
    email: r.email,
    alias: r.alias,
    firstName: r.first_name,
    lastName: r.last_name,
    role: r.role,
    accountId: r.account_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Public SDK operations name their environment in the path; this is how they find it. */
export async function findEnvironment(q: Queryable, environmentId: string): Promise<EnvironmentRef | null> {
  const row = await q.oneOrNone("SELECT id, project_id, organization_id, name FROM environments WHERE id = $1", [environmentId]);
  return row ? { id: row.id, projectId: row.project_id, organizationId: row.organization_id, name: row.name } : null;
}
