import { ActivityFailure, continueAsNew, patched, proxyActivities, proxyLocalActivities, setCurrentDetails, sleep, upsertMemo, workflowInfo } from "@temporalio/workflow";
import type { Activities } from "../activities/index.js";

// One attempt = one activity, never retried by Temporal: the request may have gone out, so the workflow's
// own schedule decides when to try again. The start-to-close timeout covers the 15 s request plus the store.
// Since the patch ATTEMPT_AS_LOCAL_ACTIVITY the attempt is a local activity: a delivery is then one workflow
// task (plan, attempt, completion) instead of two plus an activity task, and at fan-out volume the Temporal
// server's round trips are the cost (docs/benchmarks.md). Deliveries started before the patch replay and
// finish on the remote activity. An attempt cut short by a dying worker is a failed attempt of the schedule
// (remote), or runs again with the same number when the workflow task is retried (local); either way its
// stored row keeps the "interrupted" error.
const attemptOptions = { startToCloseTimeout: "45 seconds", retry: { maximumAttempts: 1 } } as const;
const { attemptWebhookDelivery: attemptRemote } = proxyActivities<Activities>(attemptOptions);
const { attemptWebhookDelivery: attemptLocal } = proxyLocalActivities<Activities>(attemptOptions);
const ATTEMPT_AS_LOCAL_ACTIVITY = "attempt-as-local-activity";

// Reading the plan is a short idempotent read: a local activity (no task-queue round trip, which is most of
// the cost of a workflow start at fan-out volume). Failing a message is idempotent too: plain retries.
const { planWebhookDelivery } = proxyLocalActivities<Activities>({
  startToCloseTimeout: "30 seconds",
  retry: { initialInterval: "1 second", maximumInterval: "30 seconds", maximumAttempts: 20 },
});
const { failWebhookMessage } = proxyActivities<Activities>({
  startToCloseTimeout: "30 seconds",
  retry: { initialInterval: "1 second", maximumInterval: "30 seconds", maximumAttempts: 20 },
});

export interface WebhookDeliveryInput {
  environmentId: string;
  messageId: string;
  /** 0 (or absent) for the original delivery, n for the n-th redelivery. */
  redelivery?: number;
  /** Carried over by continue-as-new. */
  resume?: { attempt: number; schedule: number[]; delayMs: number };
}

export interface WebhookDeliveryResult {
  status: "delivered" | "failed" | "stopped" | "missing";
  attempts: number;
  reason?: string;
}

function human(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 6000) / 10} min`;
  return `${Math.round(ms / 360_000) / 10} h`;
}

/**
 * Delivers one stored webhook message to its endpoint (workflow id webhook-delivery/<messageId>, or
 * .../redelivery-<n>): attempts at the delays of the schedule (read once from the plan, so it is part of the
 * history), or after the endpoint's Retry-After; waits briefly without counting an attempt while the
 * endpoint's concurrency slots are all taken. Ends delivered, failed (schedule exhausted), or stopped
 * (endpoint gone / disabled / deleted).
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const redelivery = input.redelivery ?? 0;
  const ref = { environmentId: input.environmentId, messageId: input.messageId, redelivery };
  let schedule: number[];
  let attempt = 0;
  let delayMs: number;
  if (input.resume) {
    ({ schedule, attempt, delayMs } = input.resume);
  } else {
    const plan = await planWebhookDelivery(ref);
    if (!plan.found) return { status: "missing", attempts: 0 };
    upsertMemo({
      eventName: plan.eventName,
      webhookId: plan.webhookId,
      webhookHost: plan.webhookHost,
      environmentId: input.environmentId,
      environment: plan.environmentName,
      redelivery,
    });
    if (plan.done) return { status: "stopped", attempts: 0, reason: "done" };
    schedule = plan.schedule;
    delayMs = schedule[0] ?? 0;
  }
  setCurrentDetails(`Delivering message ${input.messageId}${redelivery ? ` (redelivery ${redelivery})` : ""}: ${schedule.length} attempts at most.`);

  let busy = 0;
  while (attempt < schedule.length) {
    if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > 5000) {
      await continueAsNew<typeof webhookDeliveryWorkflow>({ ...input, resume: { attempt, schedule, delayMs } });
    }
    if (delayMs > 0) await sleep(delayMs, { summary: `before attempt ${attempt + 1} (${human(delayMs)})` });
    const nextDelayMs = schedule[attempt + 1] ?? null;
    let r: Awaited<ReturnType<typeof attemptRemote>>;
    try {
      const attemptOnce = patched(ATTEMPT_AS_LOCAL_ACTIVITY) ? attemptLocal : attemptRemote;
      r = await attemptOnce({ ...ref, attempt: attempt + 1, nextDelayMs });
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      // The attempt did not finish (worker died, timeout, store down): a failed attempt of the schedule.
      r = nextDelayMs === null ? { outcome: "failed", status: null } : { outcome: "retry", delayMs: nextDelayMs, status: null, retryAfter: false };
      if (nextDelayMs === null) await failWebhookMessage(ref);
    }
    if (r.outcome === "busy") {
      // Every slot of this endpoint is in use: ask again soon (jittered), without spending an attempt.
      delayMs = Math.round(250 * 2 ** Math.min(busy++, 5) * (0.5 + Math.random()));
      continue;
    }
    busy = 0;
    attempt++;
    switch (r.outcome) {
      case "delivered":
        setCurrentDetails(`Delivered on attempt ${attempt} (HTTP ${r.status}).`);
        return { status: "delivered", attempts: attempt };
      case "failed":
        setCurrentDetails(`Failed: all ${attempt} attempts were refused.`);
        return { status: "failed", attempts: attempt };
      case "stopped":
        setCurrentDetails(`Stopped: ${r.reason}.`);
        return { status: "stopped", attempts: attempt, reason: r.reason };
      case "retry":
        delayMs = r.delayMs;
        setCurrentDetails(`Attempt ${attempt} failed (${r.status ?? "no response"}); next in ${human(delayMs)}${r.retryAfter ? " (Retry-After)" : ""}.`);
        break;
    }
  }
  return { status: "failed", attempts: attempt };
}
