import { notFound } from "../../errors.js";
import type { ApiTokenPrincipal } from "../../rpc/context.js";

/**
 * The environment a management call acts on. A token may act only on its own environment; any other id
 * answers 404 exactly like an id that does not exist, so tokens cannot probe other tenants. Deprecated
 * paths carry no environment id: the token's own applies.
 */
export function environmentScope(p: ApiTokenPrincipal, environmentId: string | undefined): string {
  if (!environmentId) return p.environmentId;
  if (environmentId !== p.environmentId) throw notFound("environment");
  return environmentId;
}

/** The organization of a call: only the organization that owns the token's environment. */
export function organizationScope(p: ApiTokenPrincipal, organizationId: string): string {
  if (organizationId !== p.organizationId) throw notFound("organization");
  return organizationId;
}

/** The project of a call: only the project that owns the token's environment. */
export function projectScope(p: ApiTokenPrincipal, projectId: string): string {
  if (projectId !== p.projectId) throw notFound("project");
  return projectId;
}
