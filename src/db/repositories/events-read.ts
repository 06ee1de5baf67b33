import type { Queryable } from "../db.js";
import { toEvent, type EventRecord } from "./events.js";

/** Reading the events of an environment (the outbox table), newest first. */
export type StoredEvent = EventRecord & { occurredAt: Date | null };

const toStored = (r: Record<string, any>): StoredEvent => ({ ...toEvent(r), occurredAt: r.occurred_at ?? null });

/** What a page of events is filtered on. */
export interface EventQuery {
  offset: number;
  limit: number;
  eventName?: string;
  userId?: string;
  resourceType?: string;
  /** Only the service's own events (changes it made) or only what the SDK published. */
  source?: "service" | "client";
  /** At or after. */
  from?: Date;
  before?: Date;
}

export async function listEvents(
  q: Queryable,
  environmentId: string,
  opts: EventQuery,
): Promise<{ items: StoredEvent[]; count: number }> {
  const params: unknown[] = [environmentId];
  const where = ["environment_id = $1"];
  if (opts.eventName) where.push(`event_name = $${params.push(opts.eventName)}`);
  if (opts.userId) where.push(`user_id = $${params.push(opts.userId)}`);
  if (opts.resourceType) where.push(`resource_type = $${params.push(opts.resourceType)}`);
  if (opts.source) where.push(`source = $${params.push(opts.source)}`);
  if (opts.from) where.push(`created_at >= $${params.push(opts.from)}`);
  if (opts.before) where.push(`created_at < $${params.push(opts.before)}`);
  const cond = where.join(" AND ");
  const [rows, total] = await Promise.all([
    q.any(`SELECT * FROM events WHERE ${cond} ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [
      ...params,
      opts.limit,
      opts.offset,
    ]),
    q.one<{ n: number }>(`SELECT count(*) AS n FROM events WHERE ${cond}`, params),
  ]);
  return { items: rows.map(toStored), count: total.n };
}

export async function findEvent(q: Queryable, environmentId: string, eventId: string): Promise<StoredEvent | null> {
  const row = await q.oneOrNone("SELECT * FROM events WHERE environment_id = $1 AND id = $2", [environmentId, eventId]);
  return row ? toStored(row) : null;
}

/**
 * Client events need no fan-out: they are marked dispatched as they are stored (so the outbox dispatcher
 * never picks them up) and keep the client's own timestamp.
 */
export async function markClientEvents(q: Queryable, environmentId: string, stamps: { id: string; occurredAt: Date | null }[]): Promise<void> {
  if (stamps.length === 0) return;
  await q.none(
    `UPDATE events e SET dispatched_at = e.created_at, occurred_at = s.occurred_at
     FROM unnest($2::uuid[], $3::timestamptz[]) AS s(id, occurred_at)
     WHERE e.environment_id = $1 AND e.id = s.id AND e.source = 'client'`,
    [environmentId, stamps.map((s) => s.id), stamps.map((s) => s.occurredAt)],
  );
}
