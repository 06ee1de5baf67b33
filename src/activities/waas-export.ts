import { exportRoomKey } from "../domain/waas/threshold/key-export.js";
import type { WaasActivityDeps } from "./waas.js";
import { failFast } from "./waas-shares.js";

/**
 * The export of a WaaS wallet's key (workflow wallet-export/<walletId>/<exportId>, started by the wallet's
 * actor); the rules are in src/domain/waas/threshold/key-export.ts.
 */
export function createWaasExportActivities(deps: WaasActivityDeps) {
  return {
    async exportRoomKey(input: { environmentId: string; walletId: string; roomId: string }): Promise<void> {
      return failFast(() => exportRoomKey(deps, input));
    },
  };
}
