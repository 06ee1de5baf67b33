import type { ContextKey } from "@connectrpc/connect";
import type { DescMethod } from "@bufbuild/protobuf";
import { DomainError, notFound } from "../../errors.js";
import { methodRules } from "../../rpc/method-options.js";
import { requestIdKey, tokenCaller, type TokenPrincipal } from "../../rpc/context.js";
import { effectivePermissions, hasPermission } from "../auth/permissions.js";
import type { Deps } from "../deps.js";

/**
 * Tenant resolution for every management call, in one place. Handlers never compare ids themselves: they
 * ask for the environment, project or organization a call names (or the environment a resource lives in)
 * and get back the scope to pass to repositories plus the actor to record in the audit trail.
 *
 * - Environment tokens act only in their own environment (its project and organization for those levels);
 *   any other id answers 404, exactly like an id that does not exist.
 * - Account (member) tokens act in the organizations their account is a member of, with the permissions
 *   the token carries AND the member's role allows; non-members get 404, members lacking the permission 403.
 */

/** Who made a change: recorded with every audit row. */
export interface Actor {
  tokenId: string;
  memberId: string | null;
  accountId: string | null;
  requestId: string;
}

export interface OrganizationAccess {
  organizationId: string;
  /** The caller's role in the organization (environment tokens act with their creator's role). */
  role: string | null;
  actor: Actor;
}

export interface ProjectAccess extends OrganizationAccess {
  projectId: string;
}

export interface EnvironmentAccess extends ProjectAccess {
  environmentId: string;
  environmentName: "live" | "sandbox";
}

/** What a handler context offers: its method (for the declared permission) and context values. */
export interface CallContext {
  method: DescMethod;
  values: { get<T>(key: ContextKey<T>): T };
}

/**
 * Tables whose rows can be addressed by id alone (the deprecated and flat paths such as
 * /settings/providers/{providerId}); each has an environment_id column. Listed so that no caller can name
 * an arbitrary table.
 */
export const ENVIRONMENT_SCOPED_TABLES = new Set<string>([
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
export const ORGANIZATION_SCOPED_TABLES = new Set<string>(["members", "invites", "custom_networks", "sso_providers"]);

function actorOf(p: TokenPrincipal, ctx: CallContext, memberId: string | null): Actor {
  return {
    tokenId: p.tokenId,
    memberId,
    accountId: p.kind === "account_token" ? p.accountId : null,
    requestId: ctx.values.get(requestIdKey),
  };
}

/**
 * Account tokens: the account's membership in the organization decides (404 for non-members), then what the
 * token carries and the member's role allow (403). `member` comes from the same query as the tenant row.
 */
function requireMember(
  p: TokenPrincipal & { kind: "account_token" },
  member: { member_id: string | null; role: string | null },
  method: DescMethod,
  what: string,
): { id: string; role: string } {
  if (!member.member_id || !member.role) throw notFound(what);
  const needed = methodRules(method).permission;
  if (!hasPermission(effectivePermissions(p.permissions, member.role), needed))
    throw new DomainError("forbidden", "forbidden", `your role (${member.role}) or this token lacks the permission ${needed}`);
  return { id: member.member_id, role: member.role };
}

/** The caller's member row joined to a tenant row, in the one query that finds the tenant. */
const MEMBER_OF = (alias: string) =>
  `LEFT JOIN members m ON m.organization_id = ${alias}.organization_id AND m.account_id = $2`;

/**
 * The environment a call acts on. `environmentId` may be empty on deprecated paths that carry none: an
 * environment token's own applies, and an account token must name one (404 otherwise).
 */
export async function environmentAccess(deps: Pick<Deps, "db">, ctx: CallContext, environmentId: string | undefined): Promise<EnvironmentAccess> {
  const p = tokenCaller(ctx);
  if (p.kind === "api_token") {
    if (environmentId && environmentId !== p.environmentId) throw notFound("environment");
    return {
      environmentId: p.environmentId,
      environmentName: p.environmentName,
      projectId: p.projectId,
      organizationId: p.organizationId,
      role: p.role,
      actor: actorOf(p, ctx, p.memberId),
    };
  }
  if (!environmentId) throw notFound("environment");
  const env = await deps.db.oneOrNone<{ organization_id: string; project_id: string; name: "live" | "sandbox"; member_id: string | null; role: string | null }>(
    `SELECT e.organization_id, e.project_id, e.name, m.id AS member_id, m.role FROM environments e ${MEMBER_OF("e")} WHERE e.id = $1`,
    [environmentId, p.accountId],
  );
  if (!env) throw notFound("environment");
  const m = requireMember(p, env, ctx.method, "environment");
  return {
    environmentId,
    environmentName: env.name,
    projectId: env.project_id,
    organizationId: env.organization_id,
    role: m.role,
    actor: actorOf(p, ctx, m.id),
  };
}

/** The environment a resource addressed by id alone lives in (404 when it is not the caller's). */
export async function resourceEnvironmentAccess(
  deps: Pick<Deps, "db">,
  ctx: CallContext,
  table: string,
  id: string,
): Promise<EnvironmentAccess> {
  if (!ENVIRONMENT_SCOPED_TABLES.has(table)) throw new Error(`${table} is not an environment-scoped table`);
  const p = tokenCaller(ctx);
  // Environment tokens: their own environment; the repository's environment filter then finds the row or not.
  if (p.kind === "api_token") return environmentAccess(deps, ctx, undefined);
  const row = await deps.db.oneOrNone<{ environment_id: string }>(`SELECT environment_id FROM ${table} WHERE id = $1`, [id]);
  if (!row) throw notFound(table.replace(/_/g, " ").replace(/s$/, ""));
  return environmentAccess(deps, ctx, row.environment_id);
}

/** The organization a resource addressed by id alone belongs to (404 when it is not the caller's). */
export async function resourceOrganizationAccess(
  deps: Pick<Deps, "db">,
  ctx: CallContext,
  table: string,
  id: string,
): Promise<OrganizationAccess> {
  if (!ORGANIZATION_SCOPED_TABLES.has(table)) throw new Error(`${table} is not an organization-scoped table`);
  const row = await deps.db.oneOrNone<{ organization_id: string }>(`SELECT organization_id FROM ${table} WHERE id = $1`, [id]);
  if (!row) throw notFound(table.replace(/_/g, " ").replace(/s$/, ""));
  return organizationAccess(deps, ctx, row.organization_id);
}

export async function projectAccess(deps: Pick<Deps, "db">, ctx: CallContext, projectId: string): Promise<ProjectAccess> {
  const p = tokenCaller(ctx);
  if (p.kind === "api_token") {
    if (projectId !== p.projectId) throw notFound("project");
    return {
      projectId,
      organizationId: p.organizationId,
      role: p.role,
      actor: actorOf(p, ctx, p.memberId),
    };
  }
  const row = await deps.db.oneOrNone<{ organization_id: string; member_id: string | null; role: string | null }>(
    `SELECT pr.organization_id, m.id AS member_id, m.role FROM projects pr ${MEMBER_OF("pr")} WHERE pr.id = $1`,
    [projectId, p.accountId],
  );
  if (!row) throw notFound("project");
  const m = requireMember(p, row, ctx.method, "project");
  return { projectId, organizationId: row.organization_id, role: m.role, actor: actorOf(p, ctx, m.id) };
}

export async function organizationAccess(deps: Pick<Deps, "db">, ctx: CallContext, organizationId: string): Promise<OrganizationAccess> {
  const p = tokenCaller(ctx);
  if (p.kind === "api_token") {
    if (organizationId !== p.organizationId) throw notFound("organization");
    return { organizationId, role: p.role, actor: actorOf(p, ctx, p.memberId) };
  }
  const member = await deps.db.oneOrNone<{ member_id: string; role: string }>(
    "SELECT id AS member_id, role FROM members WHERE organization_id = $1 AND account_id = $2",
    [organizationId, p.accountId],
  );
  const m = requireMember(p, member ?? { member_id: null, role: null }, ctx.method, "organization");
  return { organizationId, role: m.role, actor: actorOf(p, ctx, m.id) };
}

/**
 * Account-level calls (the caller's own tokens, organizations and invites) need an account token: an
 * environment token is bound to one environment and does not speak for its creator's whole account.
 */
export function accountAccess(ctx: CallContext): { accountId: string; permissions: readonly string[]; actor: Actor } {
  const p = tokenCaller(ctx);
  if (p.kind !== "account_token")
    throw new DomainError("forbidden", "account_token_required", "this operation needs a member (account) API token");
  return { accountId: p.accountId, permissions: p.permissions, actor: actorOf(p, ctx, null) };
}
