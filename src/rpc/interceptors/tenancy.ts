import type { Interceptor } from "@connectrpc/connect";
import type { DescMethod, Message } from "@bufbuild/protobuf";
import * as repo from "../../db/repositories/tenant-access.js";
import type { Queryable } from "../../db/db.js";
import { effectivePermissions, hasPermission } from "../../domain/auth/permissions.js";
import type { Actor, EnvironmentAccess, OrganizationAccess, ProjectAccess } from "../../domain/tenancy/access.js";
import { DomainError, notFound } from "../../errors.js";
import { principalKey, requestIdKey, type Principal, type TokenPrincipal } from "../context.js";
import { methodRules } from "../method-options.js";
import { tenancyKey, type Tenancy } from "../tenant-context.js";
import { tenantPlanOf, type TenantPlan } from "../tenant-rules.js";
import { firstMessage } from "./first-message.js";
import { PublicEnvironments } from "../public-environments.js";

/**
 * Resolves and checks, once per call, the tenant the RPC declares (TenantRule in options.proto) and puts it
 * on the context for the handler (src/rpc/tenant-context.ts). Runs after authentication (it needs the
 * principal) and validation (a malformed id is a 400, not a lookup).
 *
 * - Environment tokens act only in their own environment (its project and organization for those levels);
 *   any other id answers 404, exactly like an id that does not exist.
 * - Account (member) tokens act in the organizations their account is a member of, with the permissions
 *   the token carries AND the member's role allows: non-members get 404, members lacking the permission 403.
 * - Public SDK calls name an environment that must exist (404 otherwise); nobody is authenticated.
 */
export function tenancyInterceptor(deps: { db: Queryable }): Interceptor {
  const publicEnvironments = new PublicEnvironments(deps.db);
  return (next) => async (req) => {
    // Only Sigil's own services have tenants; grpc.health and reflection are public by construction.
    if (!req.service.typeName.startsWith("sigil.")) return next(req);
    const plan = tenantPlanOf(req.method);
    let message: Message | undefined;
    if (req.stream) ({ message, req } = await firstMessage(req));
    else message = req.message as Message;
    const caller: Caller = { method: req.method, requestId: req.contextValues.get(requestIdKey), principal: req.contextValues.get(principalKey) };
    req.contextValues.set(tenancyKey, await resolveTenancy(deps.db, publicEnvironments, plan, (message ?? {}) as unknown as Record<string, unknown>, caller));
    return next(req);
  };
}

/** What resolution needs to know about the call. */
interface Caller {
  method: DescMethod;
  requestId: string;
  principal: Principal;
}

async function resolveTenancy(db: Queryable, publicEnvironments: PublicEnvironments, plan: TenantPlan, msg: Record<string, unknown>, c: Caller): Promise<Tenancy> {
  const value = (f: { localName: string } | undefined) => (f ? String(msg[f.localName] ?? "") : "");
  if (plan.scope === "public") {
    const environmentId = value(plan.field);
    const env = environmentId ? await publicEnvironments.find(environmentId) : null;
    if (!env) throw notFound("environment");
    // Authentication checked an end user's token against this very environment's keys; this holds it.
    if (c.principal.kind === "end_user" && c.principal.environmentId !== environmentId)
      throw new DomainError("unauthenticated", "invalid_session", "the session token is not one of this environment");
    return { publicEnvironment: env };
  }
  const p = tokenPrincipal(c);
  switch (plan.scope) {
    case "service":
      return {};
    case "caller":
      return p.kind === "api_token" ? { organization: await organizationAccess(db, c, p.organizationId) } : { account: accountAccess(c, undefined) };
    case "account":
      return { account: accountAccess(c, plan.field?.name.replace(/_id$/, "")) };
    case "environment": {
      const id = value(plan.field);
      const environment =
        plan.resource && !id ? await resourceEnvironmentAccess(db, c, plan.resource.table, value(plan.resource.field)) : await environmentAccess(db, c, id);
      return { environment, project: environment, organization: environment };
    }
    case "project": {
      const project = await projectAccess(db, c, value(plan.field));
      return { project, organization: project };
    }
    case "organization": {
      const id = value(plan.field);
      const organization =
        plan.resource && !id ? await resourceOrganizationAccess(db, c, plan.resource.table, value(plan.resource.field)) : await organizationAccess(db, c, id);
      return { organization };
    }
  }
}

function tokenPrincipal(c: Caller): TokenPrincipal {
  if (c.principal.kind === "anonymous" || c.principal.kind === "end_user")
    throw new Error(`${c.method.name} declares a management tenant but was reached without a token principal`);
  return c.principal;
}

function actorOf(c: Caller, memberId: string | null): Actor {
  const p = tokenPrincipal(c);
  return { tokenId: p.tokenId, memberId, accountId: p.kind === "account_token" ? p.accountId : null, requestId: c.requestId };
}

/**
 * Account tokens: the account's membership in the organization decides (404 for non-members), then what the
 * token carries and the member's role allow (403). The membership comes from the query that finds the tenant.
 */
function requireMember(c: Caller, member: repo.Membership, what: string): { id: string; role: string } {
  const p = tokenPrincipal(c);
  if (!member.memberId || !member.role) throw notFound(what);
  const needed = methodRules(c.method).permission;
  if (!hasPermission(effectivePermissions(p.permissions, member.role), needed))
    throw new DomainError("forbidden", "forbidden", `your role (${member.role}) or this token lacks the permission ${needed}`);
  return { id: member.memberId, role: member.role };
}

/**
 * The environment a call acts on. `environmentId` may be empty on deprecated paths that carry none: an
 * environment token's own applies, and an account token must name one (404 otherwise).
 */
async function environmentAccess(db: Queryable, c: Caller, environmentId: string): Promise<EnvironmentAccess> {
  const p = tokenPrincipal(c);
  if (p.kind === "api_token") {
    if (environmentId && environmentId !== p.environmentId) throw notFound("environment");
    const { environmentId: id, environmentName, projectId, organizationId, role } = p;
    return { environmentId: id, environmentName, projectId, organizationId, role, actor: actorOf(c, p.memberId) };
  }
  if (!environmentId) throw notFound("environment");
  const env = await repo.findEnvironmentTenant(db, environmentId, p.accountId);
  if (!env) throw notFound("environment");
  const m = requireMember(c, env, "environment");
  return {
    environmentId,
    environmentName: env.name,
    projectId: env.projectId,
    organizationId: env.organizationId,
    role: m.role,
    actor: actorOf(c, m.id),
  };
}

/** The environment a resource addressed by id alone lives in (404 when it is not the caller's). */
async function resourceEnvironmentAccess(db: Queryable, c: Caller, table: string, id: string): Promise<EnvironmentAccess> {
  // Environment tokens: their own environment; the repository's environment filter then finds the row or not.
  if (tokenPrincipal(c).kind === "api_token") return environmentAccess(db, c, "");
  const environmentId = await repo.findRowEnvironmentId(db, table, id);
  if (!environmentId) throw notFound(resourceName(table));
  return environmentAccess(db, c, environmentId);
}

/** The organization a resource addressed by id alone belongs to (404 when it is not the caller's). */
async function resourceOrganizationAccess(db: Queryable, c: Caller, table: string, id: string): Promise<OrganizationAccess> {
  const organizationId = await repo.findRowOrganizationId(db, table, id);
  if (!organizationId) throw notFound(resourceName(table));
  return organizationAccess(db, c, organizationId);
}

const resourceName = (table: string) => table.replace(/_/g, " ").replace(/s$/, "");

async function projectAccess(db: Queryable, c: Caller, projectId: string): Promise<ProjectAccess> {
  const p = tokenPrincipal(c);
  if (p.kind === "api_token") {
    if (projectId !== p.projectId) throw notFound("project");
    return { projectId, organizationId: p.organizationId, role: p.role, actor: actorOf(c, p.memberId) };
  }
  const row = await repo.findProjectTenant(db, projectId, p.accountId);
  if (!row) throw notFound("project");
  const m = requireMember(c, row, "project");
  return { projectId, organizationId: row.organizationId, role: m.role, actor: actorOf(c, m.id) };
}

async function organizationAccess(db: Queryable, c: Caller, organizationId: string): Promise<OrganizationAccess> {
  const p = tokenPrincipal(c);
  if (p.kind === "api_token") {
    if (organizationId !== p.organizationId) throw notFound("organization");
    return { organizationId, role: p.role, actor: actorOf(c, p.memberId) };
  }
  const m = requireMember(c, await repo.findMembership(db, organizationId, p.accountId), "organization");
  return { organizationId, role: m.role, actor: actorOf(c, m.id) };
}

/**
 * Account-level calls need an account token: an environment token is bound to one environment and does not
 * speak for its creator's whole account (403). When the call names one of the account's resources (`what`),
 * for an environment token it is simply not there (404, like another tenant's id).
 */
function accountAccess(c: Caller, what: string | undefined) {
  const p = tokenPrincipal(c);
  if (p.kind !== "account_token") {
    if (what) throw notFound(what);
    throw new DomainError("forbidden", "account_token_required", "this operation needs a member (account) API token");
  }
  return { accountId: p.accountId, permissions: p.permissions, actor: actorOf(c, null) };
}
