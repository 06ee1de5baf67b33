import { randomUUID } from "node:crypto";
import type { Queryable } from "../../db/db.js";
import type { EventRecord } from "../../db/repositories/events.js";

/**
 * The webhook envelope, built once when a message is created and stored as sent (webhook_messages.payload):
 * every attempt and every redelivery sends these same bytes (only `redelivery` differs on a redelivery).
 */
export interface Envelope {
  eventId: string | null;
  messageId: string;
  webhookId: string;
  userId: string | null;
  eventName: string;
  environmentId: string;
  environmentName: string;
  timestamp: string;
  redelivery: boolean;
  data: Record<string, unknown>;
  /**
   * The kid of the environment's encryption public key when sensitive fields of `data` are encrypted to it
   * (each such field is `{ "encrypted": "<JWE>" }`, see encryption.ts); absent otherwise.
   */
  kid?: string;
}

export interface MessageTarget {
  webhookId: string;
  environmentId: string;
  environmentName: string;
}

export function buildEnvelope(
  target: MessageTarget,
  messageId: string,
  event: Pick<EventRecord, "id" | "eventName" | "userId" | "data" | "createdAt"> | null,
  opts: { kid?: string } = {},
): Envelope {
  return {
    eventId: event?.id ?? null,
    messageId,
    webhookId: target.webhookId,
    userId: event?.userId ?? null,
    eventName: event?.eventName ?? "ping",
    environmentId: target.environmentId,
    environmentName: target.environmentName,
    timestamp: (event?.createdAt ?? new Date()).toISOString(),
    redelivery: false,
    data: event ? event.data : { message: "Sigil webhook endpoint created" },
    ...(opts.kid ? { kid: opts.kid } : {}),
  };
}

/** Inserts the `ping` message that greets a new endpoint; the caller starts its delivery after commit. */
export async function insertPingMessage(q: Queryable, target: MessageTarget): Promise<{ messageId: string }> {
  const messageId = randomUUID();
  const payload = buildEnvelope(target, messageId, null);
  await q.none(
    `INSERT INTO webhook_messages (id, environment_id, webhook_id, event_id, event_name, payload)
     VALUES ($1, $2, $3, NULL, 'ping', $4)`,
    [messageId, target.environmentId, target.webhookId, payload],
  );
  return { messageId };
}

/** The bytes sent for a stored envelope: a redelivery differs only by `redelivery: true`. */
export function envelopeBody(payload: Record<string, unknown>, redelivery: boolean): string {
  return JSON.stringify(redelivery ? { ...payload, redelivery: true } : payload);
}
