import { proxyActivities, upsertMemo, upsertSearchAttributes } from "@temporalio/workflow";
import type { Activities } from "../activities/index.js";
import { SEARCH_ATTRIBUTES } from "./search-attributes.js";
import { SHARE_STEP_OPTIONS } from "./share-steps.js";

const acts = proxyActivities<Activities>(SHARE_STEP_OPTIONS);

export interface WalletExportInput {
  environmentId: string;
  walletId: string;
  roomId: string;
  /** The wallet's user: an operator filters exports by user (SigilUserId) as the actors. */
  userId?: string | null;
}

/**
 * One export of a WaaS wallet's key (workflow id wallet-export/<walletId>/<exportId>), started by the
 * wallet's actor as a child so that it runs inside the actor's queue (no refresh or reshare interleaves)
 * while an operator finds each export by its own id. The id is never reused (REJECT_DUPLICATE), and the
 * activity writes the result, the audit row and the event together: an export happens once.
 */
export async function walletExportWorkflow(input: WalletExportInput): Promise<void> {
  upsertMemo({ environmentId: input.environmentId, walletId: input.walletId, roomId: input.roomId });
  upsertSearchAttributes([
    { key: SEARCH_ATTRIBUTES.environmentId, value: input.environmentId },
    ...(input.userId ? [{ key: SEARCH_ATTRIBUTES.userId, value: input.userId }] : []),
    { key: SEARCH_ATTRIBUTES.operation, value: "export" },
  ]);
  await acts.exportRoomKey(input);
}
