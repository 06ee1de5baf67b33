import type { Database } from "../db/db.js";
import type { Sealer } from "../crypto/seal.js";
import {
  completeShareSetRoom,
  destroyRetiredSets,
  failRoom,
  promoteShareSet,
  writeRoomShareSet,
  type RoomStep,
} from "../domain/waas/threshold/share-set-changes.js";
import { failFast } from "./waas-shares.js";

/**
 * The WaaS wallet actor's share-set activities (src/workflows/waas-wallet.ts): a new set written pending,
 * promoted, the retired shares destroyed, the room answered or failed. The rules, and why each step is
 * idempotent, are in src/domain/waas/threshold/share-set-changes.ts.
 */

export interface WaasActivityDeps {
  db: Database;
  sealer: Sealer;
}

export function createWaasActivities(deps: WaasActivityDeps) {
  return {
    /** A new pending share set for the room's operation (refresh, reshare; keygen and import of older actors). */
    async writeRoomShareSet(input: RoomStep & { operationId: string }): Promise<{ shareSetId: string }> {
      return failFast(() => writeRoomShareSet(deps, input));
    },

    /** The set becomes current and the previous one retired, in one transaction (idempotent). */
    async promoteWaasShareSet(input: { environmentId: string; walletId: string; shareSetId: string }): Promise<{ retiredSetIds: string[] }> {
      return failFast(() => promoteShareSet(deps, input));
    },

    /** Destroys the shares of the wallet's retired sets (idempotent). */
    async destroyRetiredWaasShares(input: { environmentId: string; walletId: string }): Promise<{ destroyed: number }> {
      return destroyRetiredSets(deps, input);
    },

    /** The room's result (the wallet and the device's new shares), audited with it, once. */
    async completeRoomShareSet(input: RoomStep & { shareSetId: string }): Promise<void> {
      return failFast(() => completeShareSetRoom(deps, input));
    },

    /** A failed operation's error, written into its room for the device to read (once; idempotent). */
    async failRoom(input: { environmentId: string; roomId: string; error: { kind: string; code: string; message: string; payload?: unknown } }): Promise<void> {
      await failRoom(deps, input);
    },
  };
}
