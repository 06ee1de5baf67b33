import { ActivityFailure, patched, proxyActivities, setCurrentDetails, sleep, upsertMemo } from "@temporalio/workflow";
import type { Activities } from "../activities/index.js";
import { DEFAULT_ACTOR_POLICY, actorInbox } from "./actor.js";

// One batch = one activity (src/domain/webhooks/endpoint-batch.ts), never retried by Temporal: its attempts
// are recorded as they happen, and the next batch reads what is still due. The heartbeat notices a dead
// worker in seconds; the start-to-close timeout covers the batch's budget plus one request.
const { deliverWebhookBatch } = proxyActivities<Activities>({
  startToCloseTimeout: "90 seconds",
  heartbeatTimeout: "10 seconds",
  retry: { maximumAttempts: 1 },
});

// A wake that came before a batch started is answered by that batch (it reads everything due): consumed
// there, it no longer causes one more, empty batch after it. Actors that ran before this patch replay without.
const WAKE_CONSUMED_BY_BATCH = "wake-consumed-by-batch";

export interface WebhookEndpointInput {
  environmentId: string;
  webhookId: string;
}

export interface WebhookEndpointResult {
  status: "idle" | "stopped";
  reason?: "missing" | "disabled";
}

/**
 * The actor of one webhook endpoint (workflow id webhook-endpoint/<webhookId>, src/temporal/actor.ts): drains
 * the endpoint's pending messages in batches, sleeps until the earliest retry or until the dispatcher wakes
 * it with new messages, continues as new before its history grows large, and ends after a quiet minute with
 * nothing pending (the next message's signal starts it again) or when the endpoint is gone or disabled.
 * Its state is in Postgres (the messages and their next_attempt_at), so its input is only the endpoint.
 */
export async function webhookEndpointWorkflow(input: WebhookEndpointInput): Promise<WebhookEndpointResult> {
  const inbox = actorInbox(DEFAULT_ACTOR_POLICY);
  upsertMemo({ environmentId: input.environmentId, webhookId: input.webhookId });
  let busy = 0;
  let failures = 0;
  for (;;) {
    if (inbox.historyFull()) return inbox.continueAsNew<[WebhookEndpointInput]>(input);
    // wait(0) only reads and clears the wake flag: no timer, no command.
    if (patched(WAKE_CONSUMED_BY_BATCH)) await inbox.wait(0);
    let r: Awaited<ReturnType<typeof deliverWebhookBatch>>;
    try {
      r = await deliverWebhookBatch(input);
      failures = 0;
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      // The batch did not finish (worker died, store down): what it recorded stays; read again shortly.
      await sleep(Math.min(1000 * 2 ** failures++, 30_000));
      continue;
    }
    if (r.kind === "stopped") {
      setCurrentDetails(`Stopped: endpoint ${r.reason}.`);
      return { status: "stopped", reason: r.reason };
    }
    if (r.kind === "busy") {
      // The tenant's in-flight batches are all taken: wait (jittered, growing) without holding a worker slot.
      await sleep(Math.round(Math.min(250 * 2 ** Math.min(busy++, 5), 5000) * (0.5 + Math.random())));
      continue;
    }
    busy = 0;
    if (r.nextDueInMs === 0) continue;
    setCurrentDetails(
      r.nextDueInMs === null ? "Nothing pending." : `Next message due in ${Math.round(r.nextDueInMs / 100) / 10} s.`,
    );
    const woken = await inbox.wait(r.nextDueInMs ?? DEFAULT_ACTOR_POLICY.idleMs);
    if (!woken && r.nextDueInMs === null) return { status: "idle" };
  }
}
