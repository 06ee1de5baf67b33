import { randomUUID } from "node:crypto";
import { pgp, type Queryable } from "../db.js";
import { toEvent, type EventRecord } from "./events.js";

/**
 * Storage of the delivery engine: the outbox relay (events -> webhook_messages) and the attempts of the
 * delivery workflows (webhook_messages status, webhook_deliveries rows, webhooks failing/disabled state).
 * Every function names the environment it works in.
 */

/** Undispatched events, oldest first, locked so that concurrent dispatchers take disjoint batches. */
export async function claimUndispatchedEvents(t: Queryable, limit: number, environmentIds?: string[]): Promise<EventRecord[]> {
  const rows = await t.any(
    `SELECT * FROM events WHERE dispatched_at IS NULL ${environmentIds ? "AND environment_id = ANY($2::uuid[])" : ""}
     ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit, environmentIds ?? null],
  );
  return rows.map(toEvent);
}

export async function markEventsDispatched(t: Queryable, eventIds: string[]): Promise<void> {
  if (eventIds.length) await t.none(`UPDATE events SET dispatched_at = clock_timestamp() WHERE id = ANY($1::uuid[])`, [eventIds]);
}

export interface Subscription {
  webhookId: string;
  environmentId: string;
  eventNames: string[];
  url: string;
}

/** The enabled endpoints of these environments with what they subscribe to. */
export async function enabledSubscriptions(t: Queryable, environmentIds: string[]): Promise<Subscription[]> {
  if (!environmentIds.length) return [];
  const rows = await t.any(
    `SELECT id, environment_id, event_names, url FROM webhooks WHERE environment_id = ANY($1::uuid[]) AND enabled_at IS NOT NULL`,
    [environmentIds],
  );
  return rows.map((r) => ({ webhookId: r.id, environmentId: r.environment_id, eventNames: r.event_names, url: r.url }));
}

export async function environmentNames(t: Queryable, environmentIds: string[]): Promise<Map<string, string>> {
  if (!environmentIds.length) return new Map();
  const rows = await t.any(`SELECT id, name FROM environments WHERE id = ANY($1::uuid[])`, [environmentIds]);
  return new Map(rows.map((r) => [r.id as string, r.name as string]));
}

export interface ActiveEncryptionKey {
  kid: string;
  alg: string;
  publicKeyPem: string;
}

/** The newest active encryption public key of an environment, if any. */
export async function newestActiveEncryptionKey(q: Queryable, environmentId: string): Promise<ActiveEncryptionKey | null> {
  const row = await q.oneOrNone(
    `SELECT kid, alg, public_key FROM encryption_public_keys WHERE environment_id = $1 AND status = 'active'
     ORDER BY created_at DESC, id DESC LIMIT 1`,
    [environmentId],
  );
  return row ? { kid: row.kid, alg: row.alg, publicKeyPem: row.public_key } : null;
}

export interface NewMessage {
  id: string;
  environmentId: string;
  webhookId: string;
  eventId: string;
  eventName: string;
  payload: unknown;
}

const messageColumns = new pgp.helpers.ColumnSet(
  ["id", "environment_id", "webhook_id", "event_id", "event_name", { name: "payload", mod: ":json" }],
  { table: "webhook_messages" },
);

/** Inserts messages; one per (event, webhook) at most. Returns those actually inserted. */
export async function insertMessages(t: Queryable, messages: NewMessage[]): Promise<NewMessage[]> {
  if (!messages.length) return [];
  const values = messages.map((m) => ({
    id: m.id,
    environment_id: m.environmentId,
    webhook_id: m.webhookId,
    event_id: m.eventId,
    event_name: m.eventName,
    payload: m.payload,
  }));
  const inserted = await t.any<{ id: string }>(
    `${pgp.helpers.insert(values, messageColumns)} ON CONFLICT (event_id, webhook_id) DO NOTHING RETURNING id`,
  );
  const ids = new Set(inserted.map((r) => r.id));
  return messages.filter((m) => ids.has(m.id));
}

/**
 * Pending messages taken into the running budget more than `olderThanMs` ago whose delivery workflow never
 * ran (the start failed or was lost). Messages still waiting for budget are not among them.
 */
export async function orphanMessages(
  q: Queryable,
  olderThanMs: number,
  limit: number,
  environmentIds?: string[],
): Promise<{ id: string; environmentId: string }[]> {
  const rows = await q.any(
    `SELECT id, environment_id FROM webhook_messages
     WHERE status = 'pending' AND workflow_seen_at IS NULL AND workflow_started_at IS NOT NULL
       AND workflow_started_at < clock_timestamp() - $1 * interval '1 millisecond'
       ${environmentIds ? "AND environment_id = ANY($3::uuid[])" : ""}
     ORDER BY workflow_started_at, id LIMIT $2`,
    [olderThanMs, limit, environmentIds ?? null],
  );
  return rows.map((r) => ({ id: r.id, environmentId: r.environment_id }));
}

/** A delivery workflow ran for the message (it counts as running even if something else started it). */
export async function markWorkflowSeen(q: Queryable, environmentId: string, messageId: string): Promise<void> {
  await q.none(
    `UPDATE webhook_messages SET workflow_seen_at = COALESCE(workflow_seen_at, clock_timestamp()),
       workflow_started_at = COALESCE(workflow_started_at, clock_timestamp())
     WHERE environment_id = $1 AND id = $2`,
    [environmentId, messageId],
  );
}

/** NOTIFY channel of a running message ending (a trigger, migration 021): budget to start waiting ones. */
export const WEBHOOK_BUDGET_CHANNEL = "sigil_webhook_budget";

/**
 * Takes waiting messages (pending, no workflow started) into the running budget and returns them, in start
 * order: running = pending with `workflow_started_at`. At most `maxPerEndpoint` running per endpoint and
 * `maxPerEnvironment` per environment; oldest first within an endpoint and an environment, and round-robin
 * across environments (each one's oldest, then each one's second...), so that one tenant's backlog cannot
 * take the whole start budget either. Serialized by a transaction-scoped advisory lock (several dispatchers
 * would otherwise both count the same free budget); rows locked meanwhile (a delete of their endpoint) are
 * skipped. Run it in a transaction; the caller starts the workflows after the commit.
 */
export async function takeStartBudget(
  t: Queryable,
  o: { maxPerEnvironment: number; maxPerEndpoint: number; limit: number; environmentIds?: string[] },
): Promise<{ id: string; environmentId: string }[]> {
  await t.one(`SELECT pg_advisory_xact_lock(hashtext('sigil.webhook-start-budget'))::text AS locked`);
  const envFilter = o.environmentIds ? "AND environment_id = ANY($4::uuid[])" : "";
  const rows = await t.any(
    `WITH running AS (
       SELECT environment_id, webhook_id, count(*)::int AS n FROM webhook_messages
       WHERE status = 'pending' AND workflow_started_at IS NOT NULL ${envFilter}
       GROUP BY environment_id, webhook_id
     ), environment_running AS (
       SELECT environment_id, sum(n)::int AS n FROM running GROUP BY environment_id
     ), waiting AS (
       SELECT id, environment_id, webhook_id, created_at,
              row_number() OVER (PARTITION BY environment_id, webhook_id ORDER BY created_at, id) AS endpoint_rank
       FROM webhook_messages
       WHERE status = 'pending' AND workflow_started_at IS NULL ${envFilter}
     ), endpoint_fits AS (
       SELECT w.id, w.environment_id, w.created_at,
              row_number() OVER (PARTITION BY w.environment_id ORDER BY w.created_at, w.id) AS environment_rank
       FROM waiting w LEFT JOIN running r ON r.environment_id = w.environment_id AND r.webhook_id = w.webhook_id
       WHERE w.endpoint_rank <= $2 - coalesce(r.n, 0)
     ), chosen AS (
       SELECT f.id, f.environment_id, f.environment_rank, f.created_at
       FROM endpoint_fits f LEFT JOIN environment_running e ON e.environment_id = f.environment_id
       WHERE f.environment_rank <= $1 - coalesce(e.n, 0)
       ORDER BY f.environment_rank, f.created_at, f.id
       LIMIT $3
     ), locked AS (
       SELECT m.id FROM webhook_messages m JOIN chosen c ON c.id = m.id AND c.environment_id = m.environment_id
       FOR UPDATE OF m SKIP LOCKED
     )
     UPDATE webhook_messages m SET workflow_started_at = clock_timestamp()
     FROM chosen c
     WHERE m.id = c.id AND m.environment_id = c.environment_id AND m.id IN (SELECT id FROM locked)
     RETURNING m.id, m.environment_id, c.environment_rank::int AS environment_rank, c.created_at`,
    [o.maxPerEnvironment, o.maxPerEndpoint, o.limit, o.environmentIds ?? null],
  );
  rows.sort((a, b) => a.environment_rank - b.environment_rank || +a.created_at - +b.created_at || (a.id < b.id ? -1 : 1));
  return rows.map((r) => ({ id: r.id, environmentId: r.environment_id }));
}

/** Everything one attempt needs: the message as stored, its endpoint and its environment. */
export interface DeliveryTarget {
  messageId: string;
  environmentId: string;
  environmentName: "live" | "sandbox";
  organizationId: string;
  eventName: string;
  payload: Record<string, unknown>;
  status: "pending" | "delivered" | "failed" | "cancelled";
  webhookId: string;
  url: string;
  secretSealed: string;
  enabled: boolean;
  failingSince: Date | null;
}

export async function findDeliveryTarget(q: Queryable, environmentId: string, messageId: string): Promise<DeliveryTarget | null> {
  const r = await q.oneOrNone(
    `SELECT m.id, m.environment_id, m.event_name, m.payload, m.status, w.id AS webhook_id, w.url, w.secret_sealed,
            w.enabled_at IS NOT NULL AS enabled, w.failing_since, e.name AS environment_name, e.organization_id
     FROM webhook_messages m
     JOIN webhooks w ON w.id = m.webhook_id AND w.environment_id = m.environment_id
     JOIN environments e ON e.id = m.environment_id
     WHERE m.environment_id = $1 AND m.id = $2`,
    [environmentId, messageId],
  );
  if (!r) return null;
  return {
    messageId: r.id,
    environmentId: r.environment_id,
    environmentName: r.environment_name,
    organizationId: r.organization_id,
    eventName: r.event_name,
    payload: r.payload,
    status: r.status,
    webhookId: r.webhook_id,
    url: r.url,
    secretSealed: r.secret_sealed,
    enabled: r.enabled,
    failingSince: r.failing_since,
  };
}

export interface AttemptRow {
  environmentId: string;
  webhookId: string;
  messageId: string;
  attempt: number;
  redelivery: boolean;
  requestUrl: string;
  requestHeaders: Record<string, string>;
  requestBody: string;
  startedAt: Date;
}

/** What an attempt looks like in the store until it is finished: a worker that dies mid-request leaves this. */
export const INTERRUPTED_ATTEMPT_ERROR = "no response recorded: the attempt was interrupted (worker stopped)";

/** Records an attempt before its request goes out; finishAttempt fills in the outcome. */
export async function startAttempt(q: Queryable, a: AttemptRow): Promise<string> {
  const id = randomUUID();
  await q.none(
    `INSERT INTO webhook_deliveries (id, environment_id, webhook_id, message_id, attempt, redelivery, request_url, request_headers,
       request_body, error, started_at, duration_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 0)`,
    [id, a.environmentId, a.webhookId, a.messageId, a.attempt, a.redelivery, a.requestUrl, a.requestHeaders, a.requestBody, INTERRUPTED_ATTEMPT_ERROR, a.startedAt],
  );
  return id;
}

export async function finishAttempt(
  q: Queryable,
  environmentId: string,
  deliveryId: string,
  o: { responseStatus: number | null; responseBodyExcerpt: string | null; error: string | null; durationMs: number },
): Promise<void> {
  await q.none(
    `UPDATE webhook_deliveries SET response_status = $3, response_body_excerpt = $4, error = $5, duration_ms = $6
     WHERE environment_id = $1 AND id = $2`,
    [environmentId, deliveryId, o.responseStatus, o.responseBodyExcerpt, o.error, o.durationMs],
  );
}

/**
 * Takes the endpoint's row lock at the start of an attempt's outcome transaction: every writer of a webhook
 * and its messages / deliveries locks the webhook row first (delete: FOR UPDATE, then its cascade), so the
 * two cannot wait on each other in opposite orders (the "deadlock detected" of a delete racing a delivery).
 * NO KEY UPDATE is the lock the later UPDATE of the row needs anyway (never upgraded, which could deadlock
 * too). False when the endpoint is gone (deleted meanwhile, with this attempt's rows).
 */
export async function lockWebhookForOutcome(q: Queryable, environmentId: string, webhookId: string): Promise<boolean> {
  const row = await q.oneOrNone("SELECT id FROM webhooks WHERE environment_id = $1 AND id = $2 FOR NO KEY UPDATE", [environmentId, webhookId]);
  return row !== null;
}

/** A successful attempt: the message is delivered and its endpoint is no longer failing. */
export async function markMessageDelivered(q: Queryable, environmentId: string, messageId: string, webhookId: string): Promise<void> {
  await q.none(
    `UPDATE webhook_messages SET status = 'delivered', attempts = attempts + 1, delivered_at = clock_timestamp(), next_attempt_at = NULL,
       updated_at = now() WHERE environment_id = $1 AND id = $2`,
    [environmentId, messageId],
  );
  await q.none(`UPDATE webhooks SET failing_since = NULL WHERE environment_id = $1 AND id = $2 AND failing_since IS NOT NULL`, [
    environmentId,
    webhookId,
  ]);
}

/**
 * A failed attempt: counts it and schedules the next one (nextAttemptInMs), or fails the message when none
 * is left (null). A message already delivered (an earlier delivery, before a redelivery) stays delivered.
 * Returns when the endpoint's current run of failures started.
 */
export async function markAttemptFailed(
  q: Queryable,
  environmentId: string,
  messageId: string,
  webhookId: string,
  nextAttemptInMs: number | null,
): Promise<Date> {
  await q.none(
    `UPDATE webhook_messages SET attempts = attempts + 1,
       status = CASE WHEN status = 'delivered' THEN status WHEN $3::int IS NULL THEN 'failed' ELSE 'pending' END,
       next_attempt_at = CASE WHEN $3::int IS NULL THEN NULL ELSE clock_timestamp() + $3::int * interval '1 millisecond' END,
       updated_at = now()
     WHERE environment_id = $1 AND id = $2`,
    [environmentId, messageId, nextAttemptInMs],
  );
  const row = await q.one(
    `UPDATE webhooks SET failing_since = COALESCE(failing_since, clock_timestamp()) WHERE environment_id = $1 AND id = $2 RETURNING failing_since`,
    [environmentId, webhookId],
  );
  return row.failing_since;
}

/** Ends a message that will not be delivered (endpoint disabled or gone) without counting an attempt. */
export async function endMessage(q: Queryable, environmentId: string, messageId: string, status: "failed" | "cancelled"): Promise<void> {
  await q.none(
    `UPDATE webhook_messages SET status = $3, next_attempt_at = NULL, updated_at = now()
     WHERE environment_id = $1 AND id = $2 AND status = 'pending'`,
    [environmentId, messageId, status],
  );
}

/**
 * Disables an endpoint on the service's own decision; false when it was already disabled (then nothing
 * changed and no event must be written).
 */
export async function disableWebhookBySystem(
  q: Queryable,
  environmentId: string,
  webhookId: string,
  reason: "gone" | "failing",
): Promise<{ url: string; eventNames: string[]; failingSince: Date | null } | null> {
  const row = await q.oneOrNone(
    `UPDATE webhooks SET enabled_at = NULL, disabled_reason = $3, updated_at = now()
     WHERE environment_id = $1 AND id = $2 AND enabled_at IS NOT NULL RETURNING url, event_names, failing_since`,
    [environmentId, webhookId, reason],
  );
  return row ? { url: row.url, eventNames: row.event_names, failingSince: row.failing_since } : null;
}
