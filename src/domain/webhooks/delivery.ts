import { randomUUID } from "node:crypto";
import type { WebhookSettings } from "../../config.js";
import type { Sealer } from "../../crypto/seal.js";
import type { Database, Queryable } from "../../db/db.js";
import { insertAudit } from "../../db/repositories/audit.js";
import { insertEvent } from "../../db/repositories/events.js";
import {
  disableWebhookBySystem,
  endMessage,
  findDeliveryTarget,
  finishAttempt,
  markAttemptFailed,
  markMessageDelivered,
  markWorkflowSeen,
  startAttempt,
  type DeliveryTarget,
} from "../../db/repositories/webhook-delivery.js";
import type { EphemeralStore } from "../../store/store.js";
import { envelopeBody } from "./messages.js";
import { deliverySchedule, disableAfterFailingMs, retryAfterMs } from "./schedule.js";
import { openWebhookSecret } from "./secret.js";
import { signedHeaders } from "./signing.js";
import { privateResolution } from "./url.js";

export interface DeliveryDeps {
  db: Database;
  store: EphemeralStore;
  sealer: Sealer;
  webhooks: WebhookSettings;
}

export interface DeliveryInput {
  environmentId: string;
  messageId: string;
  /** 0 for the original delivery, n for the n-th redelivery. */
  redelivery: number;
}

/** What the workflow needs to know once, at its start (recorded in its history, so replay-safe). */
export type DeliveryPlan =
  | { found: false }
  | {
      found: true;
      schedule: number[];
      eventName: string;
      webhookId: string;
      webhookHost: string;
      environmentName: string;
      /** The original delivery of a message that is no longer pending has nothing to do. */
      done: boolean;
    };

export type AttemptOutcome =
  | { outcome: "delivered"; status: number }
  | { outcome: "retry"; delayMs: number; status: number | null; retryAfter: boolean }
  | { outcome: "failed"; status: number | null }
  /** No free slot for this endpoint: nothing was sent, ask again shortly. */
  | { outcome: "busy" }
  /** Nothing more to do: message or endpoint gone, endpoint disabled (now or earlier). */
  | { outcome: "stopped"; reason: "missing" | "disabled" | "gone" | "failing" | "done" };

const EXCERPT_BYTES = 1024;
const USER_AGENT = "Sigil-Webhooks/1";

function host(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "invalid-url";
  }
}

/** Reads the start of the plan: marks the workflow as running (the dispatcher stops re-starting it). */
export async function planDelivery(deps: DeliveryDeps, input: DeliveryInput): Promise<DeliveryPlan> {
  const target = await findDeliveryTarget(deps.db, input.environmentId, input.messageId);
  if (!target) return { found: false };
  await markWorkflowSeen(deps.db, input.environmentId, input.messageId);
  return {
    found: true,
    schedule: deliverySchedule(deps.webhooks, target.environmentName),
    eventName: target.eventName,
    webhookId: target.webhookId,
    webhookHost: host(target.url),
    environmentName: target.environmentName,
    done: input.redelivery === 0 && target.status !== "pending",
  };
}

/**
 * Takes one of the endpoint's N concurrency slots in the store (a key with a TTL longer than any request,
 * so a worker that dies holding one frees it by expiry). Returns the release function, or null when all
 * slots are taken.
 */
async function acquireSlot(deps: DeliveryDeps, webhookId: string): Promise<(() => Promise<void>) | null> {
  const ttlSeconds = Math.ceil(deps.webhooks.requestTimeoutMs / 1000) + 15;
  const n = deps.webhooks.concurrencyPerEndpoint;
  const token = randomUUID();
  // Start at a random slot so concurrent attempts don't all race for slot 0.
  const first = Math.floor(Math.random() * n);
  for (let i = 0; i < n; i++) {
    const key = `webhook-slot:${webhookId}:${(first + i) % n}`;
    if (await deps.store.setIfAbsent(key, token, ttlSeconds)) {
      return async () => {
        // Only free it if it is still ours (it may have expired and been taken by another attempt).
        if ((await deps.store.get(key)) === token) await deps.store.del(key);
      };
    }
  }
  return null;
}

async function readExcerpt(res: Response): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  // Cut at a byte boundary, then drop a split trailing UTF-8 sequence.
  return Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString("utf8").replace(/\uFFFD+$/, "");
}

function describeError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError") return `timeout: no response within ${timeoutMs} ms`;
  const cause = e?.cause?.code ?? e?.cause?.message;
  return (cause ? `${e?.message ?? "request failed"}: ${cause}` : (e?.message ?? String(err))).slice(0, 500);
}

/**
 * One delivery attempt of one message (an activity; never retried blindly, the workflow owns the schedule):
 * loads the message and its endpoint, stops if either is gone or disabled, takes an endpoint slot, signs
 * and POSTs the stored envelope, and records the attempt (before sending, then its outcome) and its effect
 * on the message and the endpoint. `attempt` is the workflow's attempt number (1-based); `nextDelayMs` the
 * schedule's delay before the next one, null when this is the last.
 */
export async function attemptDelivery(
  deps: DeliveryDeps,
  input: DeliveryInput & { attempt: number; nextDelayMs: number | null },
  /** Aborts the request (the activity's cancellation: the worker is shutting down). */
  signal?: AbortSignal,
): Promise<AttemptOutcome> {
  const target = await findDeliveryTarget(deps.db, input.environmentId, input.messageId);
  if (!target) return { outcome: "stopped", reason: "missing" };
  if (input.redelivery === 0 && target.status !== "pending") return { outcome: "stopped", reason: "done" };
  if (!target.enabled) {
    await endMessage(deps.db, target.environmentId, target.messageId, "cancelled");
    return { outcome: "stopped", reason: "disabled" };
  }
  const release = await acquireSlot(deps, target.webhookId);
  if (!release) return { outcome: "busy" };

  let status: number | null = null;
  let excerpt: string | null = null;
  let error: string | null = null;
  let retryAfter: number | null = null;
  let deliveryId: string;
  const startedAt = new Date();
  const t0 = performance.now();
  try {
    const body = envelopeBody(target.payload, input.redelivery > 0);
    const secret = openWebhookSecret(deps.sealer, target.webhookId, target.secretSealed);
    const headers = {
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      ...signedHeaders(secret, target.messageId, startedAt, body),
    };
    deliveryId = await startAttempt(deps.db, {
      environmentId: target.environmentId,
      webhookId: target.webhookId,
      messageId: target.messageId,
      attempt: input.attempt,
      redelivery: input.redelivery > 0,
      requestUrl: target.url,
      requestHeaders: headers,
      requestBody: body,
      startedAt,
    });
    try {
      // Live endpoints are public by rule (checked as written at creation); a name can still point inwards.
      const refused = target.environmentName === "live" ? await privateResolution(target.url) : null;
      if (refused) throw new Error(`refused: ${refused}`);
      const res = await fetch(target.url, {
        method: "POST",
        headers,
        body,
        redirect: "manual",
        signal: signal
          ? AbortSignal.any([AbortSignal.timeout(deps.webhooks.requestTimeoutMs), signal])
          : AbortSignal.timeout(deps.webhooks.requestTimeoutMs),
      });
      status = res.status;
      excerpt = await readExcerpt(res).catch(() => null);
      if (status === 429 || status === 503) retryAfter = retryAfterMs(res.headers.get("retry-after"), deps.webhooks.retryAfterMaxMs);
      if (status < 200 || status > 299) error = `endpoint answered ${status}`;
    } catch (err) {
      error = describeError(err, deps.webhooks.requestTimeoutMs);
    }
  } finally {
    await release();
  }
  const durationMs = Math.round(performance.now() - t0);
  const ok = status !== null && status >= 200 && status <= 299;

  return deps.db.tx(async (t) => {
    await finishAttempt(t, target.environmentId, deliveryId, { responseStatus: status, responseBodyExcerpt: excerpt, error, durationMs });
    if (ok) {
      await markMessageDelivered(t, target.environmentId, target.messageId, target.webhookId);
      return { outcome: "delivered", status: status! };
    }
    if (status === 410) {
      await markAttemptFailed(t, target.environmentId, target.messageId, target.webhookId, null);
      await disableEndpoint(t, target, "gone");
      return { outcome: "stopped", reason: "gone" };
    }
    const delayMs = input.nextDelayMs === null ? null : (retryAfter ?? input.nextDelayMs);
    const failingSince = await markAttemptFailed(t, target.environmentId, target.messageId, target.webhookId, delayMs);
    const failingFor = Date.now() - new Date(failingSince).getTime();
    if (failingFor >= disableAfterFailingMs(deps.webhooks, target.environmentName)) {
      await endMessage(t, target.environmentId, target.messageId, "failed");
      await disableEndpoint(t, target, "failing");
      return { outcome: "stopped", reason: "failing" };
    }
    if (delayMs === null) return { outcome: "failed", status };
    return { outcome: "retry", delayMs, status, retryAfter: retryAfter !== null };
  });
}

/**
 * Disables an endpoint on the service's own decision and says so: a `webhook.disabled` event (delivered to
 * the environment's other endpoints subscribed to it) and its audit row with no actor, in the caller's
 * transaction. Nothing happens when it was already disabled.
 */
async function disableEndpoint(t: Queryable, target: DeliveryTarget, reason: "gone" | "failing"): Promise<void> {
  const before = await disableWebhookBySystem(t, target.environmentId, target.webhookId, reason);
  if (!before) return;
  const snapshot = {
    id: target.webhookId,
    url: before.url,
    eventNames: before.eventNames,
    enabled: false,
    disabledReason: reason,
    failingSince: before.failingSince ? new Date(before.failingSince).toISOString() : null,
  };
  const auditId = await insertAudit(t, {
    organizationId: target.organizationId,
    environmentId: target.environmentId,
    actorTokenId: null,
    actorMemberId: null,
    actorAccountId: null,
    action: "webhook.disabled",
    resourceType: "webhook",
    resourceId: target.webhookId,
    changes: { before: { ...snapshot, enabled: true, disabledReason: null }, after: snapshot },
    requestId: null,
  });
  await insertEvent(t, {
    environmentId: target.environmentId,
    organizationId: target.organizationId,
    eventName: "webhook.disabled",
    source: "service",
    userId: null,
    resourceType: "webhook",
    resourceId: target.webhookId,
    data: snapshot,
    auditId,
  });
}

/** Ends a message whose last attempt could not even run (the worker died): it failed. */
export async function failMessage(deps: Pick<DeliveryDeps, "db">, input: DeliveryInput): Promise<void> {
  await endMessage(deps.db, input.environmentId, input.messageId, "failed");
}
