import { randomUUID } from "node:crypto";
import type { Queryable } from "../db.js";

/** A webhook endpoint of an environment. `secretSealed` is the sealed `whsec_...` signing secret. */
export interface WebhookRecord {
  id: string;
  environmentId: string;
  url: string;
  description: string | null;
  /** Catalogue event names, or ["*"] for all of them. */
  eventNames: string[];
  secretSealed: string;
  enabledAt: Date | null;
  disabledReason: string | null;
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookMessageRecord {
  id: string;
  environmentId: string;
  webhookId: string;
  eventId: string | null;
  eventName: string;
  payload: Record<string, unknown>;
  status: "pending" | "delivered" | "failed" | "cancelled";
  attempts: number;
  redeliveries: number;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookDeliveryRecord {
  id: string;
  messageId: string;
  attempt: number;
  redelivery: boolean;
  requestUrl: string;
  /** The bytes sent (the envelope's JSON). */
  requestBody: string;
  responseStatus: number | null;
  responseBodyExcerpt: string | null;
  error: string | null;
  startedAt: Date;
  durationMs: number;
  createdAt: Date;
}

export const newWebhookId = () => randomUUID();

export function toWebhook(r: Record<string, any>): WebhookRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    url: r.url,
    description: r.description,
    eventNames: r.event_names,
    secretSealed: r.secret_sealed,
    enabledAt: r.enabled_at,
    disabledReason: r.disabled_reason,
    failingSince: r.failing_since,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toMessage(r: Record<string, any>): WebhookMessageRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    webhookId: r.webhook_id,
    eventId: r.event_id,
    eventName: r.event_name,
    payload: r.payload,
    status: r.status,
    attempts: r.attempts,
    redeliveries: r.redeliveries,
    nextAttemptAt: r.next_attempt_at,
    deliveredAt: r.delivered_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toDelivery(r: Record<string, any>): WebhookDeliveryRecord {
  return {
    id: r.id,
    messageId: r.message_id,
    attempt: r.attempt,
    redelivery: r.redelivery,
    requestUrl: r.request_url,
    requestBody: r.request_body,
    responseStatus: r.response_status,
    responseBodyExcerpt: r.response_body_excerpt,
    error: r.error,
    startedAt: r.started_at,
    durationMs: r.duration_ms,
    createdAt: r.created_at,
  };
}

export interface NewWebhook {
  url: string;
  description: string | null;
  eventNames: string[];
  secretSealed: string;
  enabled: boolean;
}

export async function insertWebhook(q: Queryable, environmentId: string, id: string, w: NewWebhook): Promise<WebhookRecord> {
  const row = await q.one(
    `INSERT INTO webhooks (id, environment_id, url, description, event_names, secret_sealed, enabled_at)
     VALUES ($1, $2, $3, $4, $5::text[], $6, CASE WHEN $7 THEN now() END) RETURNING *`,
    [id, environmentId, w.url, w.description, w.eventNames, w.secretSealed, w.enabled],
  );
  return toWebhook(row);
}

export async function countWebhooks(q: Queryable, environmentId: string): Promise<number> {
  const r = await q.one<{ n: number }>("SELECT count(*) AS n FROM webhooks WHERE environment_id = $1", [environmentId]);
  return r.n;
}

/** Serializes creations in one environment (the per-environment limit), released at commit. */
export async function lockEnvironmentWebhooks(q: Queryable, environmentId: string): Promise<void> {
  await q.any("SELECT pg_advisory_xact_lock(hashtext('webhooks:' || $1::text))", [environmentId]);
}

export async function listWebhooks(q: Queryable, environmentId: string, page: { offset: number; limit: number }) {
  const [rows, total] = await Promise.all([
    q.any("SELECT * FROM webhooks WHERE environment_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3", [
      environmentId,
      page.limit,
      page.offset,
    ]),
    q.one<{ n: number }>("SELECT count(*) AS n FROM webhooks WHERE environment_id = $1", [environmentId]),
  ]);
  return { items: rows.map(toWebhook), count: total.n };
}

/**
 * forUpdate: the lock of a change to the endpoint (or its deletion); forKeyShare: keeps it from being
 * deleted until commit while its messages change (taken before any message lock: see lockWebhookForOutcome).
 */
export async function findWebhook(
  q: Queryable,
  environmentId: string,
  id: string,
  opts: { forUpdate?: boolean; forKeyShare?: boolean } = {},
): Promise<WebhookRecord | null> {
  const lock = opts.forUpdate ? " FOR UPDATE" : opts.forKeyShare ? " FOR KEY SHARE" : "";
  const row = await q.oneOrNone(`SELECT * FROM webhooks WHERE environment_id = $1 AND id = $2${lock}`, [environmentId, id]);
  return row ? toWebhook(row) : null;
}

export interface WebhookChanges {
  url?: string;
  description?: string | null;
  eventNames?: string[];
  /** true enables (keeping an earlier enabledAt), false disables. */
  enabled?: boolean;
  secretSealed?: string;
}

export async function updateWebhook(q: Queryable, environmentId: string, id: string, c: WebhookChanges): Promise<WebhookRecord | null> {
  const row = await q.oneOrNone(
    `UPDATE webhooks SET
       url = CASE WHEN $3 THEN $4 ELSE url END,
       description = CASE WHEN $5 THEN $6 ELSE description END,
       event_names = CASE WHEN $7 THEN $8::text[] ELSE event_names END,
       enabled_at = CASE WHEN $9::boolean IS NULL THEN enabled_at WHEN $9 THEN coalesce(enabled_at, now()) ELSE NULL END,
       disabled_reason = CASE WHEN $9::boolean IS NULL THEN disabled_reason ELSE NULL END,
       failing_since = CASE WHEN $9::boolean IS TRUE THEN NULL ELSE failing_since END,
       secret_sealed = coalesce($10, secret_sealed),
       updated_at = now()
     WHERE environment_id = $1 AND id = $2 RETURNING *`,
    [
      environmentId,
      id,
      c.url !== undefined,
      c.url ?? null,
      c.description !== undefined,
      c.description ?? null,
      c.eventNames !== undefined,
      c.eventNames ?? null,
      c.enabled ?? null,
      c.secretSealed ?? null,
    ],
  );
  return row ? toWebhook(row) : null;
}

export async function deleteWebhook(q: Queryable, environmentId: string, id: string): Promise<boolean> {
  const r = await q.result("DELETE FROM webhooks WHERE environment_id = $1 AND id = $2", [environmentId, id]);
  return r.rowCount > 0;
}

export async function listWebhookMessages(
  q: Queryable,
  environmentId: string,
  webhookId: string,
  opts: { offset: number; limit: number; status?: string },
) {
  const params: unknown[] = [environmentId, webhookId];
  const where = ["environment_id = $1", "webhook_id = $2"];
  if (opts.status) where.push(`status = $${params.push(opts.status)}`);
  const cond = where.join(" AND ");
  const [rows, total] = await Promise.all([
    q.any(`SELECT * FROM webhook_messages WHERE ${cond} ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [
      ...params,
      opts.limit,
      opts.offset,
    ]),
    q.one<{ n: number }>(`SELECT count(*) AS n FROM webhook_messages WHERE ${cond}`, params),
  ]);
  return { items: rows.map(toMessage), count: total.n };
}

export async function findWebhookMessage(
  q: Queryable,
  environmentId: string,
  webhookId: string,
  messageId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<WebhookMessageRecord | null> {
  const row = await q.oneOrNone(
    `SELECT * FROM webhook_messages WHERE environment_id = $1 AND webhook_id = $2 AND id = $3${opts.forUpdate ? " FOR UPDATE" : ""}`,
    [environmentId, webhookId, messageId],
  );
  return row ? toMessage(row) : null;
}

/** Delivery attempts of a message, in the order they were made. */
export async function listWebhookDeliveries(q: Queryable, environmentId: string, messageId: string): Promise<WebhookDeliveryRecord[]> {
  const rows = await q.any("SELECT * FROM webhook_deliveries WHERE environment_id = $1 AND message_id = $2 ORDER BY created_at, id", [
    environmentId,
    messageId,
  ]);
  return rows.map(toDelivery);
}

/** Counts one more requested redelivery and returns its number (1 for the first). */
export async function incrementRedeliveries(q: Queryable, environmentId: string, messageId: string): Promise<WebhookMessageRecord> {
  const row = await q.one(
    "UPDATE webhook_messages SET redeliveries = redeliveries + 1, updated_at = now() WHERE environment_id = $1 AND id = $2 RETURNING *",
    [environmentId, messageId],
  );
  return toMessage(row);
}

/** The latest delivery attempt of each of these messages (messages without one are absent). */
export async function latestWebhookDeliveries(q: Queryable, environmentId: string, messageIds: string[]): Promise<Map<string, WebhookDeliveryRecord>> {
  if (messageIds.length === 0) return new Map();
  const rows = await q.any(
    `SELECT DISTINCT ON (message_id) * FROM webhook_deliveries WHERE environment_id = $1 AND message_id = ANY($2::uuid[])
     ORDER BY message_id, created_at DESC, id DESC`,
    [environmentId, messageIds],
  );
  return new Map(rows.map((r) => [r.message_id as string, toDelivery(r)]));
}

/** When the service recorded each of these events. */
export async function eventCreationTimes(q: Queryable, environmentId: string, eventIds: string[]): Promise<Map<string, Date>> {
  if (eventIds.length === 0) return new Map();
  const rows = await q.any("SELECT id, created_at FROM events WHERE environment_id = $1 AND id = ANY($2::uuid[])", [environmentId, eventIds]);
  return new Map(rows.map((r) => [r.id as string, r.created_at as Date]));
}

/** The environment's oldest enabled endpoint subscribed to `eventName` (the customer's backup location). */
export async function findSubscribedWebhook(q: Queryable, environmentId: string, eventName: string): Promise<WebhookRecord | null> {
  const row = await q.oneOrNone(
    `SELECT * FROM webhooks WHERE environment_id = $1 AND enabled_at IS NOT NULL AND $2 = ANY(event_names)
     ORDER BY created_at, id LIMIT 1`,
    [environmentId, eventName],
  );
  return row ? toWebhook(row) : null;
}
