import type { Client, UpdateDefinition } from "@temporalio/client";
import { waasWalletWorkflow, type WaasWalletInput, type WalletScoped } from "../workflows/waas-wallet.js";
import { updateActor } from "./actor.js";
import { taskQueues, workflowIds } from "./ids.js";
import { SEARCH_ATTRIBUTES } from "../workflows/search-attributes.js";

/**
 * Runs one lifecycle operation (an Update of src/workflows/waas-wallet.ts) on a wallet's actor,
 * `waas-wallet/<walletId>` on the interactive queue, starting the actor when it is not running. The start
 * carries the environment and user as search attributes and memo, so an operator finds the wallet's actor in
 * the Temporal UI by either; the actor sets the operation it runs itself.
 */
export function runWaasWalletOperation<Ret, Arg extends WalletScoped>(
  client: Client,
  configuredTaskQueue: string,
  wallet: WaasWalletInput,
  update: UpdateDefinition<Ret, [Arg]>,
  arg: Omit<Arg, "environmentId">,
  operationId?: string,
): Promise<Ret> {
  return updateActor(
    client,
    {
      workflow: waasWalletWorkflow,
      workflowId: workflowIds.waasWallet(wallet.walletId),
      taskQueue: taskQueues(configuredTaskQueue).interactive,
      args: [wallet],
      staticSummary: `WaaS wallet ${wallet.walletId}`,
      memo: { environmentId: wallet.environmentId, walletId: wallet.walletId, userId: wallet.userId },
      typedSearchAttributes: [
        { key: SEARCH_ATTRIBUTES.environmentId, value: wallet.environmentId },
        ...(wallet.userId ? [{ key: SEARCH_ATTRIBUTES.userId, value: wallet.userId }] : []),
      ],
    },
    update,
    // The wallet's environment goes with every operation: the actor refuses another's (waas-wallet.ts).
    [{ ...arg, environmentId: wallet.environmentId } as Arg],
    operationId,
  );
}
