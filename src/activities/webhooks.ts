import { Context } from "@temporalio/activity";
import type { WebhookSettings } from "../config.js";
import type { Sealer } from "../crypto/seal.js";
import type { Database } from "../db/db.js";
import {
  attemptDelivery,
  failMessage,
  planDelivery,
  type AttemptOutcome,
  type DeliveryInput,
  type DeliveryPlan,
} from "../domain/webhooks/delivery.js";
import { deliverEndpointBatch, type BatchOutcome } from "../domain/webhooks/endpoint-batch.js";
import type { Logger } from "../log.js";
import type { DomainObserver } from "../domain/observer.js";
import type { EphemeralStore } from "../store/store.js";

export interface WebhookActivityDeps {
  db: Database;
  store: EphemeralStore;
  sealer: Sealer;
  webhooks: WebhookSettings;
  log: Logger;
  observer: DomainObserver;
}

/** Webhook delivery activities. */
export function createWebhookActivities(deps: WebhookActivityDeps) {
  return {
    async planWebhookDelivery(input: DeliveryInput): Promise<DeliveryPlan> {
      return planDelivery(deps, input);
    },
    async attemptWebhookDelivery(input: DeliveryInput & { attempt: number; nextDelayMs: number | null }): Promise<AttemptOutcome> {
      return attemptDelivery(deps, input, Context.current().cancellationSignal);
    },
    /** One batch of an endpoint actor; heartbeats while it runs so that a dead worker is noticed in seconds. */
    async deliverWebhookBatch(input: { environmentId: string; webhookId: string }): Promise<BatchOutcome> {
      const ctx = Context.current();
      const beat = setInterval(() => ctx.heartbeat(), 2000);
      try {
        return await deliverEndpointBatch(deps, input, ctx.cancellationSignal);
      } finally {
        clearInterval(beat);
      }
    },
    async failWebhookMessage(input: DeliveryInput): Promise<void> {
      await failMessage(deps, input);
    },
  };
}
