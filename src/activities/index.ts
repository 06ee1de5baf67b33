import type { Deps } from "../domain/deps.js";
import { createExportActivities } from "./exports.js";
import { createWalletActivities } from "./wallets.js";
import { createWaasActivities } from "./waas.js";
import { createWaasBackupActivities } from "./waas-backup.js";
import { createWaasExportActivities } from "./waas-export.js";
import { createWaasSignActivities } from "./waas-sign.js";
import { createWebhookActivities } from "./webhooks.js";

/** What activities are handed: the process's Deps (src/deps.ts) less the flows, which only start work. */
export type ActivityDeps = Omit<Deps, "flows">;

/** Every activity the worker registers, with its dependencies injected. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createWalletActivities(deps),
    ...createExportActivities(deps),
    ...createWaasActivities({ db: deps.db, sealer: deps.sealer }),
    ...createWaasBackupActivities({ db: deps.db, sealer: deps.sealer, backupSealer: deps.backupSealer }),
    ...createWaasSignActivities({ db: deps.db, sealer: deps.sealer }),
    ...createWaasExportActivities({ db: deps.db, sealer: deps.sealer }),
    ...createWebhookActivities({ db: deps.db, store: deps.store, sealer: deps.sealer, webhooks: deps.config.webhooks, log: deps.log, observer: deps.observer }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
