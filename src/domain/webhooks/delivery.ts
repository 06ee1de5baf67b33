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
  lockWebhookForOutcome,
  markAttemptFailed,
  markWorkflowSeen,
  recordDelivered,
  startAttempt,
} from "../../db/repositories/webhook-delivery.js";
import type { EphemeralStore } from "../../store/store.js";
import { envelopeBody } from "./messages.js";
import { deliverySchedule, disableAfterFailingMs, retryAfterMs } from "./schedule.js";
import { openWebhookSecret } from "./secret.js";
import { signedHeaders } from "../../crypto/webhook-signing.js";
import { acquireDeliverySlots } from "./slots.js";
import type { Logger } from "../../log.js";
import { deliveryErrorCode, deliveryErrorDetail } from "./delivery-error.js";
import { destinationRules } from "../../net/destination-policy.js";
import { pinnedClient, type PinnedClient } from "../../net/pinned-fetch.js";
import type { DomainObserver } from "../observer.js";

export interface DeliveryDeps {
  db: Database;
  store: EphemeralStore;
  sealer: Sealer;
  webhooks: WebhookSettings;
  /** Where the detail of a failed attempt goes (the stored attempt keeps a generic code only). */
  log?: Logger;
  /** Where each attempt's outcome is reported for /metrics (../observer.ts). */
  observer?: DomainObserver;
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
  // A redelivery leaves the message's ownership alone: an actor's message stays its actor's.
  if (input.redelivery === 0) await markWorkflowSeen(deps.db, input.environmentId, input.messageId);
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

/** Where and as what an attempt sends: its endpoint as loaded (once per batch, or per attempt), secret opened. */
export interface AttemptEndpoint {
  environmentId: string;
  organizationId: string;
  environmentName: "live" | "sandbox";
  webhookId: string;
  url: string;
  secretSealed: string;
  secret: string;
}

export function attemptEndpoint(deps: Pick<DeliveryDeps, "sealer">, e: Omit<AttemptEndpoint, "secret">): AttemptEndpoint {
  const { environmentId, organizationId, environmentName, webhookId, url, secretSealed } = e;
  return { environmentId, organizationId, environmentName, webhookId, url, secretSealed, secret: openWebhookSecret(deps.sealer, webhookId, secretSealed) };
}

/** The client an endpoint's requests go through: its connections reach only addresses the policy allowed. */
export function endpointClient(deps: Pick<DeliveryDeps, "webhooks">, endpoint: AttemptEndpoint, connections = 1): PinnedClient {
  return pinnedClient(endpoint.url, destinationRules(deps.webhooks, endpoint.environmentName), connections);
}

/** An attempt's outcome, or `changed`: the endpoint or message is no longer as loaded; nothing was sent. */
export type SendOutcome = AttemptOutcome | { outcome: "changed" };

/**
 * One delivery attempt of one message (an activity; never retried blindly, the workflow owns the schedule):
 * loads the message and its endpoint, stops if either is gone or disabled, takes an endpoint slot, and sends
 * it (sendAttempt). `attempt` is the workflow's attempt number (1-based); `nextDelayMs` the schedule's delay
 * before the next one, null when this is the last.
 */
export async function attemptDelivery(
  deps: DeliveryDeps,
  input: DeliveryInput & { attempt: number; nextDelayMs: number | null },
  /** Aborts the request (the activity's cancellation: the worker is shutting down). */
  signal?: AbortSignal,
): Promise<AttemptOutcome> {
  // `changed` here means a write between this read and the attempt's insert: read again (a few times at most).
  for (let round = 0; round < 3; round++) {
    const target = await findDeliveryTarget(deps.db, input.environmentId, input.messageId);
    if (!target) return { outcome: "stopped", reason: "missing" };
    if (input.redelivery === 0 && target.status !== "pending") return { outcome: "stopped", reason: "done" };
    if (!target.enabled) {
      await endMessage(deps.db, target.environmentId, target.messageId, "cancelled");
      return { outcome: "stopped", reason: "disabled" };
    }
    const release = await acquireDeliverySlots(deps.store, deps.webhooks, target);
    if (!release) return { outcome: "busy" };
    const endpoint = attemptEndpoint(deps, target);
    const client = endpointClient(deps, endpoint);
    try {
      const r = await sendAttempt(deps, endpoint, { id: target.messageId, payload: target.payload }, input, client, signal);
      if (r.outcome !== "changed") return r;
    } finally {
      // Held until the outcome is stored, so that the attempts recorded as in flight never outnumber the
      // slots (a freed slot may be taken at once, before this attempt's row says it ended).
      await client.close();
      await release();
    }
  }
  return { outcome: "busy" };
}

/**
 * Sends one message to its endpoint through `client` and records it: the attempt's row before the request
 * (a worker dying mid-request leaves it, with the "interrupted" error) — inserted only if the endpoint is
 * still enabled with the URL and secret loaded and an original delivery's message still pending, else
 * `changed` and nothing is sent —, then its outcome and its effect on the message and the endpoint. The
 * caller holds the request slots (endpoint and environment) for the whole call. A success is two round
 * trips to Postgres; a failure takes the transaction below.
 */
export async function sendAttempt(...args: Parameters<typeof sendAndRecord>): Promise<SendOutcome> {
  const deps = args[0];
  try {
    const r = await sendAndRecord(...args);
    // `changed`: nothing was sent, the caller reads again.
    if (r.outcome !== "changed") deps.observer?.webhookAttempt(r.outcome === "busy" ? "error" : r.outcome);
    return r;
  } catch (err) {
    deps.observer?.webhookAttempt("error");
    throw err;
  }
}

async function sendAndRecord(
  deps: DeliveryDeps,
  endpoint: AttemptEndpoint,
  message: { id: string; payload: Record<string, unknown> },
  input: { redelivery: number; attempt: number; nextDelayMs: number | null },
  client: PinnedClient,
  signal?: AbortSignal,
): Promise<SendOutcome> {
  const { environmentId, webhookId } = endpoint;
  let status: number | null = null;
  let excerpt: string | null = null;
  let error: string | null = null;
  let retryAfter: number | null = null;
  const startedAt = new Date();
  const t0 = performance.now();
  const body = envelopeBody(message.payload, input.redelivery > 0);
  const headers = {
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    ...signedHeaders(endpoint.secret, message.id, startedAt, body),
  };
  const deliveryId = await startAttempt(
    deps.db,
    { environmentId, webhookId, messageId: message.id, attempt: input.attempt, redelivery: input.redelivery > 0, requestUrl: endpoint.url, requestHeaders: headers, requestBody: body, startedAt },
    { url: endpoint.url, secretSealed: endpoint.secretSealed, requirePending: input.redelivery === 0 },
  );
  if (!deliveryId) return { outcome: "changed" };
  try {
    // The destination policy, again, on the addresses the host resolves to when a connection is made; the
    // request goes over a connection to one of exactly those, so an excerpt only ever comes from an allowed one.
    const res = await client.post({
      headers,
      body,
      maxBytes: EXCERPT_BYTES,
      signal: signal
        ? AbortSignal.any([AbortSignal.timeout(deps.webhooks.requestTimeoutMs), signal])
        : AbortSignal.timeout(deps.webhooks.requestTimeoutMs),
    });
    status = res.status;
    excerpt = res.excerpt;
    if (status === 429 || status === 503) retryAfter = retryAfterMs(res.retryAfter, deps.webhooks.retryAfterMaxMs);
    if (status < 200 || status > 299) error = `http_${status}`;
  } catch (err) {
    error = deliveryErrorCode(err, signal?.aborted === true);
    const detail = { webhookId, messageId: message.id, error, detail: deliveryErrorDetail(err) };
    if (error === "destination_refused") deps.log?.warn("webhook destination refused", detail);
    else deps.log?.info("webhook delivery attempt failed", detail);
  }
  const durationMs = Math.round(performance.now() - t0);
  const result = { responseStatus: status, responseBodyExcerpt: excerpt, error, durationMs };

  if (status !== null && status >= 200 && status <= 299) {
    const found = await recordDelivered(deps.db, { environmentId, webhookId, messageId: message.id, deliveryId, ...result });
    return found ? { outcome: "delivered", status } : { outcome: "stopped", reason: "missing" };
  }
  return deps.db.tx(async (t): Promise<AttemptOutcome> => {
    // The webhook row first, as every writer does (see lockWebhookForOutcome).
    if (!(await lockWebhookForOutcome(t, environmentId, webhookId))) return { outcome: "stopped", reason: "missing" };
    await finishAttempt(t, environmentId, deliveryId, result);
    if (status === 410) {
      await markAttemptFailed(t, environmentId, message.id, webhookId, null);
      await disableEndpoint(t, endpoint, "gone");
      return { outcome: "stopped", reason: "gone" };
    }
    const delayMs = input.nextDelayMs === null ? null : (retryAfter ?? input.nextDelayMs);
    const failingSince = await markAttemptFailed(t, environmentId, message.id, webhookId, delayMs);
    const failingFor = Date.now() - new Date(failingSince).getTime();
    if (failingFor >= disableAfterFailingMs(deps.webhooks, endpoint.environmentName)) {
      await endMessage(t, environmentId, message.id, "failed");
      await disableEndpoint(t, endpoint, "failing");
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
async function disableEndpoint(
  t: Queryable,
  target: Pick<AttemptEndpoint, "environmentId" | "organizationId" | "webhookId">,
  reason: "gone" | "failing",
): Promise<void> {
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
