import type { Queryable } from "../../db/db.js";
import { insertAudit, type AuditWithEvent } from "../../db/repositories/audit.js";
import { lockOrganization } from "../../db/repositories/organizations.js";
import { notFound } from "../../errors.js";
import { insertEvent } from "../../db/repositories/events.js";
import { isEventName } from "../events/catalogue.js";
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
 * neither. `access` is what the tenancy interceptor (src/rpc/interceptors/tenancy.ts) resolved for the call (it names the organization,
 * the environment if any, and the actor).
 *
 * `lockOrganization` first locks the organization's row (404 when it is gone): the changes to an
 * organization's own structure (its deletion, its projects and members) take it, so that one of them racing
 * the organization's deletion waits for it and then finds nothing, instead of writing an audit row for an
 * organization deleted meanwhile (a foreign key violation) or locking rows in the opposite order to the
 * deletion's cascade (a deadlock). Other changes skip it: a statement more on every one of them, hot paths
 * included, for a race with a rare deletion.
 */
export async function audited<T>(
  deps: Pick<Deps, "db">,
  access: OrganizationAccess & { environmentId?: string },
  work: (t: Queryable, record: RecordChange) => Promise<T>,
  opts: { lockOrganization?: "key share" | "update" } = {},
): Promise<T> {
  return deps.db.tx(async (t) => {
    if (opts.lockOrganization && !(await lockOrganization(t, access.organizationId, opts.lockOrganization))) throw notFound("organization");
    return work(t, (change) => recordChange(t, access, change));
  });
}

/**
 * Records a change inside a transaction the caller already holds. A change in an environment whose action is
 * in the event catalogue also writes its event there: the transactional outbox that webhooks deliver from.
 */
export async function recordChange(t: Queryable, access: OrganizationAccess & { environmentId?: string }, change: Change): Promise<void> {
  const { audit, event } = rowsOf(access, change);
  const auditId = await insertAudit(t, audit);
  if (event) await insertEvent(t, { ...event, auditId });
}

/**
 * The audit rows and events of several changes, in order, for a hot path that writes them in the statement
 * of the change itself (sign-in: openSessionAndFindUser) instead of in statements of their own.
 */
export function changeRows(access: OrganizationAccess & { environmentId?: string }, changes: Change[]): AuditWithEvent[] {
  return changes.map((c) => rowsOf(access, c));
}

function rowsOf(access: OrganizationAccess & { environmentId?: string }, change: Change) {
  const environmentId = change.environmentId !== undefined ? change.environmentId : (access.environmentId ?? null);
  const audit = {
    organizationId: access.organizationId,
    environmentId,
    ...actorColumns(access.actor),
    action: change.action,
    resourceType: change.resourceType,
    resourceId: change.resourceId,
    changes: { ...(change.before !== undefined ? { before: change.before } : {}), ...(change.after !== undefined ? { after: change.after } : {}) },
    requestId: access.actor.requestId || null,
  };
  if (!environmentId || !isEventName(change.action)) return { audit, event: null };
  const data = (change.after ?? change.before ?? {}) as Record<string, unknown>;
  const event = {
    environmentId,
    organizationId: access.organizationId,
    eventName: change.action,
    source: "service" as const,
    userId: userIdOf(change, data),
    resourceType: change.resourceType,
    resourceId: change.resourceId,
    data,
  };
  return { audit, event };
}

/** The user an event is about: the user itself, or the user a snapshot names. */
function userIdOf(change: Change, data: Record<string, unknown>): string | null {
  if (change.resourceType === "user") return change.resourceId;
  const id = data.userId;
  return typeof id === "string" && /^[0-9a-f-]{36}$/.test(id) ? id : null;
}

export function actorColumns(actor: Actor) {
  return { actorTokenId: actor.tokenId || null, actorMemberId: actor.memberId, actorAccountId: actor.accountId, actorUserId: actor.userId || null };
}
