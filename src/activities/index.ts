import { createExportActivities, type ExportActivityDeps } from "./exports.js";
import { createWalletActivities, type WalletActivityDeps } from "./wallets.js";

export type ActivityDeps = WalletActivityDeps & ExportActivityDeps;

/** Every activity the worker registers, with its dependencies injected. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createWalletActivities(deps),
    ...createExportActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
