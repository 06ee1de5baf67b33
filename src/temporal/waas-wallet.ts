import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, WorkflowUpdateFailedError, type Client, type UpdateDefinition } from "@temporalio/client";
import { DomainError, type ErrorKind } from "../errors.js";
import { waasWalletWorkflow, type WaasWalletInput, type WalletScoped } from "../workflows/waas-wallet.js";
import { SEARCH_ATTRIBUTES } from "../workflows/search-attributes.js";
import { updateActor } from "./actor.js";
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

/**
 * The DomainError an Update failed with: an activity's non-retryable failure carries the error's kind,
 * code and payload as details (src/activities/waas-shares.ts failFast), maybe through the export child;
 * the actor's validator refuses with a plain ApplicationFailure (type = code). Null for anything else.
 */
export function domainErrorOfUpdate(err: unknown): DomainError | null {
  if (!(err instanceof WorkflowUpdateFailedError)) return null;
  let cause: unknown = err.cause;
  while (cause instanceof ActivityFailure || cause instanceof ChildWorkflowFailure) cause = cause.cause;
  if (!(cause instanceof ApplicationFailure)) return null;
  const d = (cause.details?.[0] ?? {}) as { kind?: ErrorKind; code?: string; payload?: Record<string, unknown> };
  const code = d.code ?? cause.type ?? "operation_failed";
  const kind: ErrorKind = d.kind ?? (code === "not_found" ? "not_found" : "bad_request");
  return new DomainError(kind, code, cause.message, d.payload);
}
