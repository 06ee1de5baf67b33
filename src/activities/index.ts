import { createExportActivities, type ExportActivityDeps } from "./exports.js";
import { createWalletActivities, type WalletActivityDeps } from "./wallets.js";
import { createWebhookActivities, type WebhookActivityDeps } from "./webhooks.js";

export type ActivityDeps = WalletActivityDeps & ExportActivityDeps & Partial<WebhookActivityDeps>;

/** Every activity the worker registers, with its dependencies injected. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createWalletActivities(deps),
    ...createExportActivities(deps),
    ...createWebhookActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
