import { pgp, type Queryable } from "../db.js";
import { toEvent, type EventRecord } from "./events.js";

/**
 * Storage of the outbox relay (events -> webhook_messages): claiming undispatched events, fanning them out
 * to subscribed endpoints as messages, and the sweep for messages no actor took. The relay serves every
 * environment of the deployment's database, so its claim and sweep name none.
 */

/**
 * Undispatched events of every environment (the relay serves the whole deployment), oldest first, locked so
 * that concurrent dispatchers take disjoint batches.
 */
export async function claimUndispatchedEvents(t: Queryable, limit: number): Promise<EventRecord[]> {
  const rows = await t.any(
    `SELECT * FROM events WHERE dispatched_at IS NULL ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit],
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
 * Endpoints with messages older than `olderThanMs` that no actor ever took (a crash between the messages'
 * commit and the signal to their actor): the dispatcher's sweep signals these actors again.
 */
export async function endpointsWithUnseenMessages(
  q: Queryable,
  olderThanMs: number,
  limit: number,
): Promise<{ environmentId: string; webhookId: string }[]> {
  const rows = await q.any(
    `SELECT DISTINCT environment_id, webhook_id FROM (
       SELECT environment_id, webhook_id FROM webhook_messages
       WHERE status = 'pending' AND workflow_seen_at IS NULL AND workflow_started_at IS NULL
         AND created_at < clock_timestamp() - $1 * interval '1 millisecond'
       ORDER BY created_at, id LIMIT $2) x`,
    [olderThanMs, limit],
  );
  return rows.map((r) => ({ environmentId: r.environment_id, webhookId: r.webhook_id }));
}
