import { randomUUID } from "node:crypto";
import type { Queryable } from "../db.js";
import { EVENTS_CHANNEL, type NewEvent } from "./events.js";

export interface AuditRecord {
  id: string;
  organizationId: string;
  environmentId: string | null;
  actorTokenId: string | null;
  actorMemberId: string | null;
  actorAccountId: string | null;
  /** The end user who made the change through the SDK (no token is involved then). */
  actorUserId: string | null;
  /** `{resource}.{action}`, e.g. `user.created`: the same names the events catalogue uses. */
  action: string;
  resourceType: string;
  resourceId: string;
  /** What changed: `before` and/or `after` snapshots (secrets never included). */
  changes: Record<string, unknown>;
  requestId: string | null;
  createdAt: Date;
}

export type NewAuditRecord = Omit<AuditRecord, "id" | "createdAt" | "actorUserId"> & { actorUserId?: string | null };

export async function insertAudit(q: Queryable, a: NewAuditRecord): Promise<string> {
  const id = randomUUID();
  await q.none(
    `INSERT INTO audit_log (id, organization_id, environment_id, actor_token_id, actor_member_id, actor_account_id, action,
       resource_type, resource_id, changes, request_id, actor_user_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [id, a.organizationId, a.environmentId, a.actorTokenId, a.actorMemberId, a.actorAccountId, a.action, a.resourceType, a.resourceId, a.changes, a.requestId, a.actorUserId ?? null],
  );
  return id;
}

/**
 * The CTEs `audit_rows`, `event_rows` and `notified` of a statement that writes audit rows with their outbox events from two
 * JSON parameters (auditRowsParams), and the expression that wakes the outbox dispatcher once per environment
 * when the statement's transaction commits: reference `notified` in the statement's result, or it is not run.
 * `onlyIf`: a condition over the statement's other CTEs (e.g. that the row the change is about was written).
 */
export function auditsWithEventsCtes(audits: number, events: number, channel: number, onlyIf = "TRUE"): string {
  return `audit_rows AS (
       INSERT INTO audit_log (id, organization_id, environment_id, actor_token_id, actor_member_id, actor_account_id, action,
         resource_type, resource_id, changes, request_id, actor_user_id)
       SELECT * FROM jsonb_to_recordset($${audits}::jsonb) AS x(id uuid, organization_id uuid, environment_id uuid, actor_token_id uuid,
         actor_member_id uuid, actor_account_id uuid, action text, resource_type text, resource_id text, changes jsonb, request_id text,
         actor_user_id uuid)
       WHERE ${onlyIf}
     ), event_rows AS (
       INSERT INTO events (id, environment_id, organization_id, event_name, source, user_id, resource_type, resource_id, data, audit_id)
       SELECT * FROM jsonb_to_recordset($${events}::jsonb) AS y(id uuid, environment_id uuid, organization_id uuid, event_name text, source text,
         user_id uuid, resource_type text, resource_id text, data jsonb, audit_id uuid)
       WHERE ${onlyIf}
       RETURNING environment_id
     ), notified AS (
       SELECT count(pg_notify($${channel}, environment_id::text)) AS n FROM (SELECT DISTINCT environment_id FROM event_rows) n
     )`;
}

/** An audit row with its outbox event when it has one, as a hot path hands them over. */
export interface AuditWithEvent {
  audit: NewAuditRecord;
  event: Omit<NewEvent, "auditId"> | null;
}

/** The values of auditsWithEventsCtes's three parameters for these rows, in their order. */
export function auditRowsParams(rows: AuditWithEvent[]): [string, string, string] {
  const audits: Record<string, unknown>[] = [];
  const events: Record<string, unknown>[] = [];
  for (const { audit: a, event: e } of rows) {
    const id = randomUUID();
    audits.push({
      id,
      organization_id: a.organizationId,
      environment_id: a.environmentId,
      actor_token_id: a.actorTokenId,
      actor_member_id: a.actorMemberId,
      actor_account_id: a.actorAccountId,
      action: a.action,
      resource_type: a.resourceType,
      resource_id: a.resourceId,
      changes: a.changes,
      request_id: a.requestId,
      actor_user_id: a.actorUserId ?? null,
    });
    if (e)
      events.push({
        id: randomUUID(),
        environment_id: e.environmentId,
        organization_id: e.organizationId,
        event_name: e.eventName,
        source: e.source,
        user_id: e.userId,
        resource_type: e.resourceType,
        resource_id: e.resourceId,
        data: e.data,
        audit_id: id,
      });
  }
  return [JSON.stringify(audits), JSON.stringify(events), EVENTS_CHANNEL];
}

/** Newest first, keyset-paginated by (created_at, id) so deep pages stay cheap. */
export async function listAudit(
  q: Queryable,
  scope: { environmentId: string } | { organizationId: string },
  opts: { limit: number; offset: number; resourceType?: string; resourceId?: string },
): Promise<{ items: AuditRecord[]; count: number }> {
  const [col, value] = "environmentId" in scope ? ["environment_id", scope.environmentId] : ["organization_id", scope.organizationId];
  const filters = [`${col} = $1`];
  const params: unknown[] = [value];
  if (opts.resourceType) filters.push(`resource_type = $${params.push(opts.resourceType)}`);
  if (opts.resourceId) filters.push(`resource_id = $${params.push(opts.resourceId)}`);
  const where = filters.join(" AND ");
  const [rows, total] = await Promise.all([
    q.any(`SELECT * FROM audit_log WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${opts.limit} OFFSET ${opts.offset}`, params),
    q.one(`SELECT count(*) AS n FROM audit_log WHERE ${where}`, params),
  ]);
  return { items: rows.map(toAudit), count: total.n };
}

function toAudit(r: Record<string, any>): AuditRecord {
  return {
    id: r.id,
    organizationId: r.organization_id,
    environmentId: r.environment_id,
    actorTokenId: r.actor_token_id,
    actorMemberId: r.actor_member_id,
    actorAccountId: r.actor_account_id,
    actorUserId: r.actor_user_id ?? null,
    action: r.action,
    resourceType: r.resource_type,
    resourceId: r.resource_id,
    changes: r.changes,
    requestId: r.request_id,
    createdAt: r.created_at,
  };
}

/** A change an outside service made and answered with its own id (an exchange's transfer, a provider's payment). */
export interface ExternalRecord {
  action: string;
  resourceType: string;
  /** The outside service's id of what it made. */
  resourceId: string;
  /** Another field of the row's `after` that must match, where ids are only unique per service (the exchange). */
  after?: { field: string; value: string };
}

/**
 * Serializes the recording of one outside change until the transaction ends (a retry or a race answered the
 * same id waits here), then tells whether its audit row is written already, so each is recorded once.
 */
export async function lockExternalRecord(q: Queryable, environmentId: string, r: ExternalRecord): Promise<boolean> {
  const scope = r.after ? `${r.after.field}=${r.after.value}` : "";
  await q.any("SELECT pg_advisory_xact_lock(hashtext('external-record:' || $1 || ':' || $2 || ':' || $3 || ':' || $4))", [environmentId, r.resourceType, scope, r.resourceId]);
  const row = await q.oneOrNone(
    `SELECT 1 FROM audit_log WHERE environment_id = $1 AND resource_type = $2 AND resource_id = $3 AND action = $4
       AND ($5::text IS NULL OR changes -> 'after' ->> $5 = $6) LIMIT 1`,
    [environmentId, r.resourceType, r.resourceId, r.action, r.after?.field ?? null, r.after?.value ?? null],
  );
  return row !== null;
}
