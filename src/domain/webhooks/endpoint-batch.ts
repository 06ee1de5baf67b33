import {
  cancelEndpointMessages,
  claimDueMessages,
  findEndpointState,
  nextDueInMs,
  releaseClaimedMessages,
} from "../../db/repositories/webhook-delivery.js";
import { attemptDelivery, type DeliveryDeps } from "./delivery.js";
import { busyBackoffMs, deliverySchedule } from "./schedule.js";
import { acquireBatchSlot, batchLimits } from "./slots.js";

/**
 * One batch of an endpoint's actor (src/workflows/webhook-endpoint.ts), run as one activity: takes the
 * endpoint's due messages (oldest first, at most a batch), sends them with up to the endpoint's concurrency
 * in parallel through attemptDelivery (the same attempt as a per-message workflow's: destination policy,
 * endpoint and environment request slots, every attempt recorded, Retry-After, 410 and failing-too-long
 * disable), and says when the next message is due. A failed attempt stores its retry time on the message
 * (next_attempt_at), so the schedule lives in Postgres and the actor only sleeps until the earliest one.
 */
export type BatchOutcome =
  /** The environment's in-flight batches are all taken (another tenant's work is not held up): try later. */
  | { kind: "busy" }
  /** The endpoint is gone, or disabled (its waiting messages were cancelled): the actor ends. */
  | { kind: "stopped"; reason: "missing" | "disabled" }
  /** nextDueInMs: 0 = more is due now; null = nothing left to deliver. */
  | { kind: "done"; attempted: number; delivered: number; nextDueInMs: number | null };

/** New messages are taken into a batch for this long; the batch then ends with what is in flight. */
export const BATCH_BUDGET_MS = 20_000;

export async function deliverEndpointBatch(
  deps: DeliveryDeps,
  input: { environmentId: string; webhookId: string },
  signal?: AbortSignal,
): Promise<BatchOutcome> {
  const { environmentId, webhookId } = input;
  const endpoint = await findEndpointState(deps.db, environmentId, webhookId);
  if (!endpoint) return { kind: "stopped", reason: "missing" };
  if (!endpoint.enabled) {
    await cancelEndpointMessages(deps.db, environmentId, webhookId);
    return { kind: "stopped", reason: "disabled" };
  }
  const schedule = deliverySchedule(deps.webhooks, endpoint.environmentName);
  const firstDelayMs = schedule[0] ?? 0;
  const ttlSeconds = Math.ceil((BATCH_BUDGET_MS + deps.webhooks.requestTimeoutMs) / 1000) + 30;
  const release = await acquireBatchSlot(deps.store, deps.webhooks, environmentId, ttlSeconds);
  if (!release) return { kind: "busy" };

  let attempted = 0;
  let delivered = 0;
  let claimed: { id: string; attempts: number }[] = [];
  try {
    claimed = await claimDueMessages(deps.db, { environmentId, webhookId, firstDelayMs, limit: batchLimits(deps.webhooks).size });
    const deadline = Date.now() + BATCH_BUDGET_MS;
    let next = 0;
    let endpointDone = false;
    const lane = async () => {
      let busy = 0;
      while (next < claimed.length && !endpointDone && !signal?.aborted && Date.now() < deadline) {
        const m = claimed[next++]!;
        for (;;) {
          const attempt = m.attempts + 1;
          const r = await attemptDelivery(deps, { environmentId, messageId: m.id, redelivery: 0, attempt, nextDelayMs: schedule[attempt] ?? null }, signal);
          if (r.outcome === "busy") {
            // The endpoint's or the environment's request slots are taken (a redelivery, another endpoint of
            // the tenant): wait briefly without spending an attempt, unless the batch is over.
            if (signal?.aborted || Date.now() >= deadline) break;
            await new Promise((res) => setTimeout(res, Math.round(Math.min(busyBackoffMs(busy++) / 25, 200) * (0.5 + Math.random()))));
            continue;
          }
          busy = 0;
          attempted++;
          if (r.outcome === "delivered") delivered++;
          // The endpoint was disabled (410, failing too long, or meanwhile): nothing more goes to it.
          if (r.outcome === "stopped" && r.reason !== "done" && r.reason !== "missing") endpointDone = true;
          break;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(deps.webhooks.concurrencyPerEndpoint, claimed.length) }, lane));
  } finally {
    await releaseClaimedMessages(deps.db, environmentId, claimed.map((m) => m.id)).catch(() => {});
    await release();
  }
  return { kind: "done", attempted, delivered, nextDueInMs: await nextDueInMs(deps.db, environmentId, webhookId, firstDelayMs) };
}
