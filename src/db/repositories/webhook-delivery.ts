import { randomUUID } from "node:crypto";
import type { Queryable } from "../db.js";

/**
 * Storage of the delivery engine: the attempts of the delivery workflows and endpoint actors
 * (webhook_messages status and claims, webhook_deliveries rows, webhooks failing/disabled state). Every
 * function names the environment it works in. The outbox relay's queries are in webhook-outbox.ts.
 */

/** A delivery workflow took the message (an original delivery's per-message workflow, or its endpoint's actor). */
export async function markWorkflowSeen(q: Queryable, environmentId: string, messageId: string): Promise<void> {
  await q.none(
    `UPDATE webhook_messages SET workflow_seen_at = COALESCE(workflow_seen_at, clock_timestamp()),
       workflow_started_at = COALESCE(workflow_started_at, clock_timestamp())
     WHERE environment_id = $1 AND id = $2`,
    [environmentId, messageId],
  );
}

/** An endpoint as its actor's batch sees it: whether it takes deliveries, where to and signed with what. */
export interface EndpointState {
  enabled: boolean;
  environmentName: "live" | "sandbox";
  organizationId: string;
  url: string;
  secretSealed: string;
}

export async function findEndpointState(q: Queryable, environmentId: string, webhookId: string): Promise<EndpointState | null> {
  const r = await q.oneOrNone(
    `SELECT w.enabled_at IS NOT NULL AS enabled, w.url, w.secret_sealed, e.name AS environment_name, e.organization_id
     FROM webhooks w JOIN environments e ON e.id = w.environment_id
     WHERE w.environment_id = $1 AND w.id = $2`,
    [environmentId, webhookId],
  );
  return r
    ? { enabled: r.enabled, environmentName: r.environment_name, organizationId: r.organization_id, url: r.url, secretSealed: r.secret_sealed }
    : null;
}

/** When a message of an actor's queue is due: its retry time, or its creation plus the schedule's first delay. */
const DUE_AT = "coalesce(next_attempt_at, created_at + $3 * interval '1 millisecond')";

/** A message as its batch holds it: the stored envelope is sent as is, so it is read once, here. */
export interface ClaimedMessage {
  id: string;
  attempts: number;
  payload: Record<string, unknown>;
}

/**
 * How long a claimed message is left to the batch that claimed it. One actor per endpoint runs one batch at a
 * time, but a batch whose activity timed out (a missed heartbeat on a starved worker) may still be sending
 * while the actor's next batch starts: that one must not take the messages still in flight. Longer than a
 * batch's budget plus one request; a worker killed mid-batch delays its in-flight messages by at most this.
 */
const CLAIM_LEASE_MS = 60_000;

/**
 * Takes an endpoint's due messages (oldest first, at most `limit`) into its actor's batch: marks them claimed
 * and seen. Only messages without a per-message workflow (workflow_started_at) belong to the actor, and not
 * those another batch claimed within the lease (an attempt's outcome releases its claim). Rows another batch
 * is claiming at this moment are skipped (SKIP LOCKED): without it, two concurrent claims read the same
 * unclaimed rows and both take them. `exclude`: the batch's messages still in flight.
 */
export async function claimDueMessages(
  q: Queryable,
  o: { environmentId: string; webhookId: string; firstDelayMs: number; limit: number; exclude?: string[] },
): Promise<ClaimedMessage[]> {
  const rows = await q.any(
    `UPDATE webhook_messages m SET batch_claimed_at = clock_timestamp(), workflow_seen_at = coalesce(m.workflow_seen_at, clock_timestamp())
     FROM (SELECT id FROM webhook_messages
           WHERE environment_id = $1 AND webhook_id = $2 AND status = 'pending' AND workflow_started_at IS NULL
             AND ${DUE_AT} <= clock_timestamp() AND NOT (id = ANY($5::uuid[]))
             AND (batch_claimed_at IS NULL OR batch_claimed_at < clock_timestamp() - $6::int * interval '1 millisecond')
           ORDER BY created_at, id LIMIT $4
           FOR UPDATE SKIP LOCKED) due
     WHERE m.id = due.id
     RETURNING m.id, m.attempts, m.created_at, m.payload`,
    [o.environmentId, o.webhookId, o.firstDelayMs, o.limit, o.exclude ?? [], CLAIM_LEASE_MS],
  );
  rows.sort((a, b) => +a.created_at - +b.created_at || (a.id < b.id ? -1 : 1));
  return rows.map((r) => ({ id: r.id, attempts: r.attempts, payload: r.payload }));
}

/** The batch is over: its messages are no longer in flight (those still pending wait for their retry). */
export async function releaseClaimedMessages(q: Queryable, environmentId: string, messageIds: string[]): Promise<void> {
  if (messageIds.length) {
    await q.none("UPDATE webhook_messages SET batch_claimed_at = NULL WHERE environment_id = $1 AND id = ANY($2::uuid[])", [environmentId, messageIds]);
  }
}

/** Ms until the endpoint's next message is due (0: now), or null when its actor has nothing left. */
export async function nextDueInMs(q: Queryable, environmentId: string, webhookId: string, firstDelayMs: number): Promise<number | null> {
  const r = await q.one(
    `SELECT ceil(extract(epoch FROM min(${DUE_AT}) - clock_timestamp()) * 1000)::bigint AS ms FROM webhook_messages
     WHERE environment_id = $1 AND webhook_id = $2 AND status = 'pending' AND workflow_started_at IS NULL`,
    [environmentId, webhookId, firstDelayMs],
  );
  // Clamped here, not with SQL greatest(): greatest(0, NULL) is 0, and an empty queue would read as "due now".
  return r.ms === null ? null : Math.max(0, Number(r.ms));
}

/** Ends the actor's pending messages of an endpoint that was disabled (nothing more is sent to it). */
export async function cancelEndpointMessages(q: Queryable, environmentId: string, webhookId: string): Promise<void> {
  await q.none(
    `UPDATE webhook_messages SET status = 'cancelled', next_attempt_at = NULL, batch_claimed_at = NULL, updated_at = now()
     WHERE environment_id = $1 AND webhook_id = $2 AND status = 'pending' AND workflow_started_at IS NULL`,
    [environmentId, webhookId],
  );
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

/**
 * Records an attempt before its request goes out (finishAttempt or recordDelivered fill in the outcome), but
 * only while what the caller loaded still holds: the endpoint enabled with this URL and sealed secret, and
 * (for an original delivery) the message still pending. Null when not: nothing is recorded or sent, and the
 * caller reads again. Checking in the insert itself spares a read per attempt (a batch loads the endpoint
 * and its messages once) without sending anything the endpoint no longer asks for.
 */
export async function startAttempt(q: Queryable, a: AttemptRow, current: { url: string; secretSealed: string; requirePending: boolean }): Promise<string | null> {
  const id = randomUUID();
  const row = await q.oneOrNone(
    `INSERT INTO webhook_deliveries (id, environment_id, webhook_id, message_id, attempt, redelivery, request_url, request_headers,
       request_body, error, started_at, duration_ms)
     SELECT $1, m.environment_id, m.webhook_id, m.id, $5, $6, $7, $8, $9, $10, $11, 0
     FROM webhook_messages m JOIN webhooks w ON w.id = m.webhook_id AND w.environment_id = m.environment_id
     WHERE m.environment_id = $2 AND m.id = $4 AND m.webhook_id = $3 AND w.enabled_at IS NOT NULL
       AND w.url = $7 AND w.secret_sealed = $12 AND (NOT $13 OR m.status = 'pending')
     RETURNING id`,
    [id, a.environmentId, a.webhookId, a.messageId, a.attempt, a.redelivery, a.requestUrl, a.requestHeaders, a.requestBody,
      INTERRUPTED_ATTEMPT_ERROR, a.startedAt, current.secretSealed, current.requirePending],
  );
  return row ? id : null;
}

export interface AttemptResult {
  responseStatus: number | null;
  responseBodyExcerpt: string | null;
  error: string | null;
  durationMs: number;
}

/**
 * A successful attempt, recorded in one round trip: the statements of lockWebhookForOutcome and finishAttempt, the
 * message delivered (and out of its batch's claim), the endpoint no longer failing, in this order, sent as one simple query, which
 * Postgres runs as one transaction. False when the endpoint is gone (deleted meanwhile, with these rows).
 */
export async function recordDelivered(
  q: Queryable,
  o: { environmentId: string; webhookId: string; messageId: string; deliveryId: string } & AttemptResult,
): Promise<boolean> {
  const [locked] = await q.multi(
    `SELECT id FROM webhooks WHERE environment_id = $1 AND id = $2 FOR NO KEY UPDATE;
     UPDATE webhook_deliveries SET response_status = $5, response_body_excerpt = $6, error = $7, duration_ms = $8
       WHERE environment_id = $1 AND id = $4;
     UPDATE webhook_messages SET status = 'delivered', attempts = attempts + 1, delivered_at = clock_timestamp(), next_attempt_at = NULL,
       batch_claimed_at = NULL, updated_at = now() WHERE environment_id = $1 AND id = $3;
     UPDATE webhooks SET failing_since = NULL WHERE environment_id = $1 AND id = $2 AND failing_since IS NOT NULL`,
    [o.environmentId, o.webhookId, o.messageId, o.deliveryId, o.responseStatus, o.responseBodyExcerpt, o.error, o.durationMs],
  );
  return (locked?.length ?? 0) > 0;
}

/** Fills in a failed attempt's outcome (in the caller's outcome transaction). */
export async function finishAttempt(q: Queryable, environmentId: string, deliveryId: string, o: AttemptResult): Promise<void> {
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
 * NO KEY UPDATE is the lock the UPDATE of the row that follows needs anyway (never upgraded, which could deadlock
 * too). False when the endpoint is gone (deleted meanwhile, with this attempt's rows).
 */
export async function lockWebhookForOutcome(q: Queryable, environmentId: string, webhookId: string): Promise<boolean> {
  const row = await q.oneOrNone("SELECT id FROM webhooks WHERE environment_id = $1 AND id = $2 FOR NO KEY UPDATE", [environmentId, webhookId]);
  return row !== null;
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
       batch_claimed_at = NULL, updated_at = now()
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
