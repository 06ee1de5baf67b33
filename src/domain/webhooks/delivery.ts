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
import { acquireDeliverySlots } from "./slots.js";
import type { Logger } from "../../log.js";
import { deliveryErrorCode, deliveryErrorDetail } from "./delivery-error.js";
import { destinationRules, resolveDestination } from "./destination-policy.js";
import { postPinned } from "./pinned-fetch.js";

export interface DeliveryDeps {
  db: Database;
  store: EphemeralStore;
  sealer: Sealer;
  webhooks: WebhookSettings;
  /** Where the detail of a failed attempt goes (the stored attempt keeps a generic code only). */
  log?: Logger;
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
  const release = await acquireDeliverySlots(deps.store, deps.webhooks, target);
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
    // The destination policy, again, on the addresses the host resolves to now; the request connects to one
    // of exactly those (DNS rebinding cannot slip through), so an excerpt only ever comes from an allowed one.
    const destination = await resolveDestination(target.url, destinationRules(deps.webhooks, target.environmentName));
    if (!destination.ok) {
      error = "destination_refused";
      deps.log?.warn("webhook destination refused", { webhookId: target.webhookId, messageId: target.messageId, reason: destination.reason });
    } else {
      try {
        const res = await postPinned(target.url, destination.addresses, {
          headers,
          body,
          maxBytes: EXCERPT_BYTES,
          signal: signal
            ? AbortSignal.any([AbortSignal.timeout(deps.webhooks.requestTimeoutMs), signal])
            : AbortSignal.timeout(deps.webhooks.requestTimeoutMs),
        });
        status = res.status;
        excerpt = res.excerpt;
        if (status === 429 || status === 503) retryAfter = retryAfterMs(res.headers.get("retry-after"), deps.webhooks.retryAfterMaxMs);
        if (status < 200 || status > 299) error = `http_${status}`;
      } catch (err) {
        error = deliveryErrorCode(err, signal?.aborted === true);
        deps.log?.info("webhook delivery attempt failed", { webhookId: target.webhookId, messageId: target.messageId, error, detail: deliveryErrorDetail(err) });
      }
    }
    const durationMs = Math.round(performance.now() - t0);
    const ok = status !== null && status >= 200 && status <= 299;

    return await deps.db.tx(async (t): Promise<AttemptOutcome> => {
      // The webhook row first, as every writer does (see lockWebhookForOutcome).
      if (!(await lockWebhookForOutcome(t, target.environmentId, target.webhookId))) return { outcome: "stopped", reason: "missing" };
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
  } finally {
    // Held until the outcome is stored, so that the attempts recorded as in flight never outnumber the
    // slots (a freed slot may be taken at once, before this attempt's row says it ended).
    await release();
  }
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
