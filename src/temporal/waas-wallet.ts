import { WorkflowUpdateFailedError, type Client, type UpdateDefinition } from "@temporalio/client";
import { codedFailureOf } from "../domain/failure-codec.js";
import { DomainError } from "../errors.js";
import { waasWalletWorkflow, type WaasWalletInput, type WalletScoped } from "../workflows/waas-wallet.js";
import { updateActor } from "./actor.js";
import { startSearchAttributes } from "./search-attributes.js";
import { taskQueues, workflowIds } from "./ids.js";

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
      typedSearchAttributes: startSearchAttributes(wallet.environmentId, wallet.userId),
    },
    update,
    // The wallet's environment goes with every operation: the actor refuses another's (waas-wallet.ts).
    [{ ...arg, environmentId: wallet.environmentId } as Arg],
    operationId,
  );
}

/**
 * The DomainError an Update failed with, read by the one failure codec (src/domain/failure-codec.ts) that
 * the activities encode with and the actor reads: an activity's refusal, maybe through the export child, or
 * the actor's validator's. Null for anything that is not an Update's failure with an ApplicationFailure.
 */
export function domainErrorOfUpdate(err: unknown): DomainError | null {
  if (!(err instanceof WorkflowUpdateFailedError)) return null;
  const f = codedFailureOf(err);
  return f && new DomainError(f.kind, f.code, f.message, f.payload);
}
