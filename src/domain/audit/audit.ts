import type { Queryable } from "../../db/db.js";
import { insertAudit } from "../../db/repositories/audit.js";
import type { Deps } from "../deps.js";
import type { Actor, OrganizationAccess } from "../tenancy/access.js";

/** One change to record: `{resource}.{action}` (e.g. `user.updated`), the resource, and what changed. */
export interface Change {
  action: string;
  resourceType: string;
  resourceId: string;
  /** Snapshots before and/or after the change. Never put secrets here (sealed values, raw tokens). */
  before?: unknown;
  after?: unknown;
  /** Overrides the environment of the access (e.g. project-level changes: none). */
  environmentId?: string | null;
}

export type RecordChange = (change: Change) => Promise<void>;

/**
 * Runs a management change in one transaction together with its audit rows: either both are stored or
 * neither. `access` is what src/domain/tenancy/access.ts resolved for the call (it names the organization,
 * the environment if any, and the actor).
 */
export async function audited<T>(
  deps: Pick<Deps, "db">,
  access: OrganizationAccess & { environmentId?: string },
  work: (t: Queryable, record: RecordChange) => Promise<T>,
): Promise<T> {
  return deps.db.tx((t) => work(t, (change) => recordChange(t, access, change)));
}

/** Records a change inside a transaction the caller already holds. */
export async function recordChange(t: Queryable, access: OrganizationAccess & { environmentId?: string }, change: Change): Promise<void> {
  await insertAudit(t, {
    organizationId: access.organizationId,
    environmentId: change.environmentId !== undefined ? change.environmentId : (access.environmentId ?? null),
    ...actorColumns(access.actor),
    action: change.action,
    resourceType: change.resourceType,
    resourceId: change.resourceId,
    changes: { ...(change.before !== undefined ? { before: change.before } : {}), ...(change.after !== undefined ? { after: change.after } : {}) },
    requestId: access.actor.requestId || null,
  });
}

export function actorColumns(actor: Actor) {
  return { actorTokenId: actor.tokenId, actorMemberId: actor.memberId, actorAccountId: actor.accountId };
}
