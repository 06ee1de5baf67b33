import { randomUUID } from "node:crypto";
import type { Queryable } from "../db.js";

export interface EventRecord {
  id: string;
  environmentId: string;
  organizationId: string;
  eventName: string;
  source: "service" | "client";
  userId: string | null;
  resourceType: string | null;
  resourceId: string | null;
  data: Record<string, unknown>;
  auditId: string | null;
  createdAt: Date;
  dispatchedAt: Date | null;
}

export type NewEvent = Omit<EventRecord, "id" | "createdAt" | "dispatchedAt">;

/** The channel the outbox dispatcher LISTENs on; NOTIFY is delivered when the writing transaction commits. */
export const EVENTS_CHANNEL = "sigil_events";

/** Writes an event into the outbox and wakes the dispatcher once the caller's transaction commits. */
export async function insertEvent(q: Queryable, e: NewEvent): Promise<string> {
  const id = randomUUID();
  // One round trip: the insert and the notification (delivered at commit) in one statement.
  await q.any(
    `WITH inserted AS (
       INSERT INTO events (id, environment_id, organization_id, event_name, source, user_id, resource_type, resource_id, data, audit_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING environment_id)
     SELECT pg_notify($11, environment_id::text) FROM inserted`,
    [id, e.environmentId, e.organizationId, e.eventName, e.source, e.userId, e.resourceType, e.resourceId, e.data, e.auditId, EVENTS_CHANNEL],
  );
  return id;
}

export function toEvent(r: Record<string, any>): EventRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    organizationId: r.organization_id,
    eventName: r.event_name,
    source: r.source,
    userId: r.user_id,
    resourceType: r.resource_type,
    resourceId: r.resource_id,
    data: r.data,
    auditId: r.audit_id,
    createdAt: r.created_at,
    dispatchedAt: r.dispatched_at,
  };
}
