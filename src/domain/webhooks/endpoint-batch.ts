import {
  cancelEndpointMessages,
  claimDueMessages,
  endMessage,
  findDeliveryTarget,
  findEndpointState,
  nextDueInMs,
  releaseClaimedMessages,
  type ClaimedMessage,
} from "../../db/repositories/webhook-delivery.js";
import { attemptEndpoint, endpointClient, sendAttempt, type AttemptEndpoint, type DeliveryDeps } from "./delivery.js";
import type { PinnedClient } from "../../net/pinned-fetch.js";
import { busyBackoffMs, deliverySchedule } from "./schedule.js";
import { acquireBatchSlot, acquireDeliverySlots, batchesInFlight, batchLimits, type ReleaseSlots } from "./slots.js";

/**
 * One batch of an endpoint's actor (src/workflows/webhook-endpoint.ts), run as one activity: takes the
 * endpoint's due messages (oldest first, at most a batch's size claimed at a time, claiming more as they
 * go out, for up to BATCH_BUDGET_MS), sends them through up to the endpoint's concurrency of lanes, and says
 * when the next message is due. A failed attempt stores its retry time on the message (next_attempt_at), so
 * the schedule lives in Postgres and the actor only sleeps until the earliest one.
 *
 * What one attempt costs is what the batch does not repeat (docs/benchmarks.md, "webhooks, round 2"): the
 * endpoint (URL, sealed secret, environment) is read and its secret opened once per batch, the messages'
 * envelopes come with their claim, a lane takes its endpoint and environment request slots once and keeps
 * them while it has messages (one request in flight per lane, so the per-endpoint and per-environment bounds of slots.ts hold), and the
 * lanes share one client with kept-alive connections, each checked against the destination policy when it
 * is made. Each attempt still checks that the endpoint is enabled and unchanged and the message pending, in
 * the insert of its row (sendAttempt), and records its outcome before the lane moves on.
 *
 * A batch runs at most its share of the environment's request slots (the limit over the tenant's batches in
 * flight, read again every SHARE_REFRESH_MS), so lanes that keep their slots do not starve the tenant's other
 * endpoints. A batch that finds nothing due looks again for LINGER_MS before it ends: in a burst the next
 * messages are a moment away, and ending costs a round of workflow and activity tasks. An endpoint disabled
 * during the batch ends the actor as the next batch would (its waiting messages cancelled).
 */
export type BatchOutcome =
  /** The environment's in-flight batches are all taken (another tenant's work is not held up): the actor waits and tries again. */
  | { kind: "busy" }
  /** The endpoint is gone, or disabled (its waiting messages were cancelled): the actor ends. */
  | { kind: "stopped"; reason: "missing" | "disabled" }
  /** nextDueInMs: 0 = more is due now; null = nothing left to deliver. */
  | { kind: "done"; attempted: number; delivered: number; nextDueInMs: number | null };

/** New messages are taken into a batch for this long; the batch then ends with what is in flight. */
export const BATCH_BUDGET_MS = 20_000;

/** A batch that finds nothing due looks again every LINGER_POLL_MS for this long before it ends. */
const LINGER_MS = 300;
const LINGER_POLL_MS = 50;

/** How often a batch reads its share of the environment's request slots again. */
const SHARE_REFRESH_MS = 500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function deliverEndpointBatch(
  deps: DeliveryDeps,
  input: { environmentId: string; webhookId: string },
  signal?: AbortSignal,
): Promise<BatchOutcome> {
  const { environmentId, webhookId } = input;
  const state = await findEndpointState(deps.db, environmentId, webhookId);
  if (!state) return { kind: "stopped", reason: "missing" };
  if (!state.enabled) {
    await cancelEndpointMessages(deps.db, environmentId, webhookId);
    return { kind: "stopped", reason: "disabled" };
  }
  const schedule = deliverySchedule(deps.webhooks, state.environmentName);
  const firstDelayMs = schedule[0] ?? 0;
  const ttlSeconds = Math.ceil((BATCH_BUDGET_MS + deps.webhooks.requestTimeoutMs) / 1000) + 30;
  const release = await acquireBatchSlot(deps.store, deps.webhooks, environmentId, ttlSeconds);
  if (!release) return { kind: "busy" };

  const { size } = batchLimits(deps.webhooks);
  const lanes = Math.max(1, Math.min(deps.webhooks.concurrencyPerEndpoint, size));
  let endpoint: AttemptEndpoint = attemptEndpoint(deps, { environmentId, webhookId, ...state });
  let client: PinnedClient = endpointClient(deps, endpoint, lanes);
  const deadline = Date.now() + BATCH_BUDGET_MS;
  let attempted = 0;
  let delivered = 0;
  let endpointDone = false;
  const over = () => endpointDone || signal?.aborted === true || Date.now() >= deadline;

  // Claimed and not yet released (in the queue, in flight, or attempted and still pending); delivered ones
  // leave the claim as they are recorded.
  const held = new Set<string>();
  const inFlight = new Set<string>();
  const queue: ClaimedMessage[] = [];
  let exhausted = false;
  let emptySince: number | null = null;
  let claiming: Promise<void> | null = null;

  /** Releases what was attempted and is not delivered, then claims up to the batch size (one claim at a time). */
  const refill = async () => {
    const queued = new Set(queue.map((m) => m.id));
    const finished = [...held].filter((id) => !inFlight.has(id) && !queued.has(id));
    if (finished.length) {
      await releaseClaimedMessages(deps.db, environmentId, finished);
      for (const id of finished) held.delete(id);
    }
    const limit = size - held.size;
    if (limit <= 0) return void (await sleep(50)); // every claimed message is in flight or queued: wait for one to finish
    const claimed = await claimDueMessages(deps.db, { environmentId, webhookId, firstDelayMs, limit, exclude: [...held] });
    if (claimed.length === 0) {
      // Nothing due: during a burst the next messages are usually a moment away, and ending now would cost a
      // round of workflow and activity tasks before they go out; a few short reads first, then the batch ends.
      emptySince ??= Date.now();
      if (Date.now() - emptySince >= LINGER_MS) exhausted = true;
      else await sleep(LINGER_POLL_MS);
      return;
    }
    emptySince = null;
    for (const m of claimed) {
      held.add(m.id);
      queue.push(m);
    }
  };
  const next = async (): Promise<ClaimedMessage | null> => {
    for (;;) {
      if (over()) return null;
      const m = queue.shift();
      if (m) {
        // In flight from here (not from the request): a refill meanwhile must neither release nor re-claim it.
        inFlight.add(m.id);
        return m;
      }
      if (exhausted) return null;
      claiming ??= refill().finally(() => (claiming = null));
      await claiming;
    }
  };

  /** The endpoint changed since it was read (or the message did): read the message's state and act on it. */
  const recheck = async (m: ClaimedMessage): Promise<"retry" | "skip"> => {
    const target = await findDeliveryTarget(deps.db, environmentId, m.id);
    if (!target || target.status !== "pending") return "skip";
    if (!target.enabled) {
      await endMessage(deps.db, environmentId, m.id, "cancelled");
      endpointDone = true;
      return "skip";
    }
    if (target.url !== endpoint.url || target.secretSealed !== endpoint.secretSealed) {
      // A new URL or secret: the next attempts go there and are signed with it; requests in flight finish.
      const old = client;
      endpoint = attemptEndpoint(deps, target);
      client = endpointClient(deps, endpoint, lanes);
      void old.close();
    }
    return "retry";
  };

  // The batch's share of the environment's request slots, read again as the tenant's other batches come and
  // go: lanes beyond it hand their slots back and wait.
  let share = lanes;
  const refreshShare = async () => {
    const batches = Math.max(1, await batchesInFlight(deps.store, deps.webhooks, environmentId));
    share = Math.max(1, Math.min(lanes, Math.floor(deps.webhooks.concurrencyPerEnvironment / batches)));
  };
  const sharing = setInterval(() => void refreshShare().catch(() => {}), SHARE_REFRESH_MS);

  const lane = async (index: number) => {
    let slots: ReleaseSlots | null = null;
    let busy = 0;
    try {
      for (;;) {
        if (index >= share) {
          if (slots) await slots();
          slots = null;
          if (over() || (exhausted && queue.length === 0)) return;
          await sleep(SHARE_REFRESH_MS / 2);
          continue;
        }
        const m = await next();
        if (!m) return;
        if (!slots) {
          // One request in flight per lane: the lane's endpoint and environment slots, taken once.
          const ttl = Math.ceil((BATCH_BUDGET_MS + deps.webhooks.requestTimeoutMs) / 1000) + 15;
          slots = await acquireDeliverySlots(deps.store, deps.webhooks, { environmentId, webhookId }, ttl);
          if (!slots) {
            // Taken (a redelivery, the tenant's other endpoints): put the message back for a lane that has
            // slots, and wait briefly without spending an attempt.
            inFlight.delete(m.id);
            queue.unshift(m);
            if (over()) return;
            await sleep(Math.round(Math.min(busyBackoffMs(busy++) / 25, 200) * (0.5 + Math.random())));
            continue;
          }
        }
        try {
          for (let round = 0; round < 3; round++) {
            const attempt = m.attempts + 1;
            const r = await sendAttempt(deps, endpoint, m, { redelivery: 0, attempt, nextDelayMs: schedule[attempt] ?? null }, client, signal);
            if (r.outcome === "changed") {
              if ((await recheck(m)) === "skip") break;
              continue;
            }
            attempted++;
            if (r.outcome === "delivered") {
              delivered++;
              held.delete(m.id);
            }
            // The endpoint was disabled (410, failing too long): nothing more goes to it.
            if (r.outcome === "stopped" && r.reason !== "done" && r.reason !== "missing") endpointDone = true;
            break;
          }
        } finally {
          inFlight.delete(m.id);
        }
      }
    } finally {
      await slots?.();
    }
  };

  try {
    // Settled, not raced: the client and the claims are released only once no lane runs any more.
    await refreshShare();
    const failed = (await Promise.allSettled(Array.from({ length: lanes }, (_, i) => lane(i)))).find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
  } finally {
    clearInterval(sharing);
    await (claiming as Promise<void> | null)?.catch(() => {});
    await client.close();
    await releaseClaimedMessages(deps.db, environmentId, [...held]).catch(() => {});
    await release();
  }
  if (endpointDone) {
    // Disabled during the batch (410, failing too long, or by its owner): unless enabled again meanwhile, the
    // rest waits for nothing, and the actor ends as it would at its next batch.
    const now = await findEndpointState(deps.db, environmentId, webhookId);
    if (!now) return { kind: "stopped", reason: "missing" };
    if (!now.enabled) {
      await cancelEndpointMessages(deps.db, environmentId, webhookId);
      return { kind: "stopped", reason: "disabled" };
    }
  }
  return { kind: "done", attempted, delivered, nextDueInMs: await nextDueInMs(deps.db, environmentId, webhookId, firstDelayMs) };
}
