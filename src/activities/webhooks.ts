import { Context } from "@temporalio/activity";
import type { WebhookSettings } from "../config.js";
import type { Sealer } from "../crypto/seal.js";
import type { Database } from "../db/db.js";
import {
  attemptDelivery,
  failMessage,
  planDelivery,
  type AttemptOutcome,
  type DeliveryDeps,
  type DeliveryInput,
  type DeliveryPlan,
} from "../domain/webhooks/delivery.js";
import type { Logger } from "../log.js";
import type { EphemeralStore } from "../store/store.js";

export interface WebhookActivityDeps {
  db: Database;
  store: EphemeralStore;
  sealer: Sealer;
  webhooks: WebhookSettings;
  log: Logger;
}

/**
 * Webhook delivery activities. The store, sealer and settings are optional in the registration (older
 * callers register activities with the database alone); a worker without them cannot deliver and says so.
 */
export function createWebhookActivities(deps: { db: Database } & Partial<WebhookActivityDeps>) {
  const full = (): DeliveryDeps => {
    if (!deps.store || !deps.sealer || !deps.webhooks) throw new Error("this worker was started without webhook delivery dependencies");
    return { db: deps.db, store: deps.store, sealer: deps.sealer, webhooks: deps.webhooks, log: deps.log };
  };
  return {
    async planWebhookDelivery(input: DeliveryInput): Promise<DeliveryPlan> {
      return planDelivery(full(), input);
    },
    async attemptWebhookDelivery(input: DeliveryInput & { attempt: number; nextDelayMs: number | null }): Promise<AttemptOutcome> {
      return attemptDelivery(full(), input, Context.current().cancellationSignal);
    },
    async failWebhookMessage(input: DeliveryInput): Promise<void> {
      await failMessage(deps, input);
    },
  };
}
