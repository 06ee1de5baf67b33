import { commitSigningRound, signInRoom } from "../domain/waas/threshold/signing.js";
import { roomFor } from "../domain/waas/threshold/share-sets.js";
import type { WaasActivityDeps } from "./waas.js";
import { failFast } from "./waas-shares.js";

/**
 * The wallet actor's signing activities, kept for actors whose histories already hold a signing Update
 * (src/workflows/waas-wallet.ts `runRoom` with operation sign, `commitSign`): signatures are now made on
 * the request path (src/domain/waas/threshold/device-operations.ts), with the same rules
 * (src/domain/waas/threshold/signing.ts).
 */
export function createWaasSignActivities(deps: WaasActivityDeps) {
  return {
    async commitRoomSign(input: { environmentId: string; walletId: string; roomId: string }): Promise<void> {
      return failFast(() =>
        deps.db.tx(async (t) => commitSigningRound(t, deps.sealer, await roomFor(t, input.environmentId, input.walletId, input.roomId, ["sign"]))),
      );
    },

    async signRoom(input: { environmentId: string; walletId: string; roomId: string }): Promise<void> {
      return failFast(() =>
        deps.db.tx(async (t) => {
          await signInRoom(t, deps.sealer, await roomFor(t, input.environmentId, input.walletId, input.roomId, ["sign"]));
        }),
      );
    },
  };
}
