import { createWalletActivities, type WalletActivityDeps } from "./wallets.js";

export type ActivityDeps = WalletActivityDeps;

/** Every activity the worker registers, with its dependencies injected. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createWalletActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
