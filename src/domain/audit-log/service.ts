import { listAudit } from "../../db/repositories/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess, OrganizationAccess } from "../tenancy/access.js";

export interface AuditQuery {
  offset: number;
  limit: number;
  resourceType?: string;
  resourceId?: string;
}

const filters = (q: AuditQuery) => ({
  offset: q.offset,
  limit: q.limit,
  resourceType: q.resourceType || undefined,
  resourceId: q.resourceId || undefined,
});

/** Changes recorded in one environment, newest first. */
export function environmentAuditLog(deps: Pick<Deps, "db">, access: EnvironmentAccess, q: AuditQuery) {
  return listAudit(deps.db, { environmentId: access.environmentId }, filters(q));
}

/** Changes recorded anywhere in an organization, newest first. */
export function organizationAuditLog(deps: Pick<Deps, "db">, access: OrganizationAccess, q: AuditQuery) {
  return listAudit(deps.db, { organizationId: access.organizationId }, filters(q));
}
