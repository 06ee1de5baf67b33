import { randomUUID } from "node:crypto";
import type { WebhookSettings } from "../../config.js";
import type { EphemeralStore } from "../../store/store.js";

/**
 * Bounds on in-flight delivery requests, held in the store so that every worker process sees the same ones:
 * at most `concurrencyPerEndpoint` requests to one endpoint (its receiver's load) and at most
 * `concurrencyPerEnvironment` for one environment over all its endpoints (so one tenant's slow or black-holed
 * endpoints cannot take every delivery slot of the workers). They bound requests, not workflows:
 * whatever runs the attempts (a per-message workflow's attempt, a lane of an endpoint actor's batch) takes the
 * same slots. A slot is a key with a TTL longer than what holds it (a request, or a lane for its batch), so a
 * worker that dies holding one frees it by expiry.
 */
export type ReleaseSlots = () => Promise<void>;

/**
 * Takes an endpoint slot and an environment slot; null (nothing held) when either is full. Held for one
 * request (the default TTL) or, by a lane of an actor's batch, for the requests of the lane one after the
 * other (`ttlSeconds` covering the batch): either way one slot pair is one request in flight at most.
 */
export async function acquireDeliverySlots(
  store: EphemeralStore,
  settings: Pick<WebhookSettings, "requestTimeoutMs" | "concurrencyPerEndpoint" | "concurrencyPerEnvironment">,
  target: { environmentId: string; webhookId: string },
  ttlSeconds = Math.ceil(settings.requestTimeoutMs / 1000) + 15,
): Promise<ReleaseSlots | null> {
  // The endpoint first: it is the one that is usually full (a slow endpoint), and then the environment's
  // slots are not touched at all.
  const endpoint = await takeSlot(store, `webhook-slot:${target.webhookId}`, settings.concurrencyPerEndpoint, ttlSeconds);
  if (!endpoint) return null;
  const environment = await takeSlot(store, `webhook-env-slot:${target.environmentId}`, settings.concurrencyPerEnvironment, ttlSeconds);
  if (!environment) {
    await endpoint();
    return null;
  }
  return async () => {
    await Promise.all([environment(), endpoint()]);
  };
}

/** One of n slots under `prefix`: the release function, or null when all are taken. */
async function takeSlot(store: EphemeralStore, prefix: string, n: number, ttlSeconds: number): Promise<ReleaseSlots | null> {
  const token = randomUUID();
  // Start at a random slot so concurrent attempts don't all race for slot 0.
  const first = Math.floor(Math.random() * n);
  for (let i = 0; i < n; i++) {
    const key = `${prefix}:${(first + i) % n}`;
    if (await store.setIfAbsent(key, token, ttlSeconds)) {
      return async () => {
        // Only free it if it is still ours (it may have expired and been taken by another attempt).
        if ((await store.get(key)) === token) await store.del(key);
      };
    }
  }
  return null;
}

/**
 * Batch sizes of the endpoint actors (src/workflows/webhook-endpoint.ts): one batch holds at most
 * `maxRunningPerEndpoint` messages, and an environment has at most as many batches in flight as fit in
 * `maxRunningPerEnvironment` messages (at least one): they bound what one tenant's actors hold at once, so
 * that a tenant with many endpoints cannot take every activity slot of the webhook workers. (They were first
 * caps on running per-message workflows, before the endpoint actors.)
 */
export function batchLimits(settings: Pick<WebhookSettings, "maxRunningPerEndpoint" | "maxRunningPerEnvironment">) {
  const size = Math.max(1, Math.min(settings.maxRunningPerEndpoint, settings.maxRunningPerEnvironment));
  return { size, perEnvironment: Math.max(1, Math.floor(settings.maxRunningPerEnvironment / size)) };
}

/** One of the environment's in-flight batch slots for `ttlSeconds` (longer than any batch); null when all are taken. */
export async function acquireBatchSlot(
  store: EphemeralStore,
  settings: Pick<WebhookSettings, "maxRunningPerEndpoint" | "maxRunningPerEnvironment">,
  environmentId: string,
  ttlSeconds: number,
): Promise<ReleaseSlots | null> {
  return takeSlot(store, `webhook-env-batch:${environmentId}`, batchLimits(settings).perEnvironment, ttlSeconds);
}

/**
 * How many of the environment's batch slots are taken now (its endpoints' batches in flight, this one
 * included): a batch runs at most its share of the environment's request slots, so that one endpoint's
 * lanes, holding their slots for the batch, do not leave the tenant's other endpoints none.
 */
export async function batchesInFlight(
  store: EphemeralStore,
  settings: Pick<WebhookSettings, "maxRunningPerEndpoint" | "maxRunningPerEnvironment">,
  environmentId: string,
): Promise<number> {
  const n = batchLimits(settings).perEnvironment;
  const taken = await Promise.all(Array.from({ length: n }, (_, i) => store.get(`webhook-env-batch:${environmentId}:${i}`)));
  return taken.filter((v) => v !== null).length;
}
