import { Client, WorkflowExecutionAlreadyStartedError } from "@temporalio/client";
import type { Flows } from "../domain/deps.js";
import { exportUsersWorkflow } from "../workflows/export-users.js";
import { walletRecoveryWorkflow } from "../workflows/wallet-recovery.js";
import { webhookDeliveryWorkflow } from "../workflows/webhook-delivery.js";
import { webhookEndpointWorkflow } from "../workflows/webhook-endpoint.js";
import { backupUpdate, recoverUpdate, runRoomUpdate } from "../workflows/waas-wallet.js";
import { wakeActors } from "./actor.js";
import { connectStoppable } from "./client-shutdown.js";
import { domainErrorOfUpdate, runWaasWalletOperation } from "./waas-wallet.js";
import { taskQueues, workflowIds } from "./ids.js";
import { tracingClientInterceptors } from "./tracing.js";
import { startSearchAttributes } from "./search-attributes.js";

/** The client of a process; stop it with closeTemporalClient (./client-shutdown.ts), which cannot crash the process. */
export async function connectTemporalClient(address: string, namespace: string): Promise<Client> {
  // A tracing process passes the caller's trace on to the workflows it starts (./tracing.ts).
  const workflow = await tracingClientInterceptors();
  return new Client({ connection: await connectStoppable(address), namespace, ...(workflow.length ? { interceptors: { workflow } } : {}) });
}

/**
 * The domain's view of durable flows. A recovery already running for the same user is joined rather than
 * started twice (USE_EXISTING); a finished one may run again (ALLOW_DUPLICATE).
 */
export function createFlows(client: Client, taskQueue: string): Flows {
  // Deliveries go to the webhook queue: a delivery backlog never waits in front of an export or a recovery.
  const webhookTaskQueue = taskQueues(taskQueue).webhooks;
  return {
    async recoverWallets(input) {
      const workflowId = workflowIds.walletRecovery(input.environmentId, input.userId);
      return client.workflow.execute(walletRecoveryWorkflow, {
        taskQueue,
        workflowId,
        args: [input],
        workflowIdConflictPolicy: "USE_EXISTING",
        workflowIdReusePolicy: "ALLOW_DUPLICATE",
        workflowExecutionTimeout: "5 minutes",
        staticSummary: `Restore of the soft-deleted wallets of user ${input.userId}`,
        typedSearchAttributes: startSearchAttributes(input.environmentId, input.userId),
      });
    },
    // An export runs once: a second start of the same id (a retried request) joins the running workflow.
    async startExport(input) {
      await client.workflow.start(exportUsersWorkflow, {
        taskQueue,
        workflowId: workflowIds.export(input.exportId),
        args: [input],
        workflowIdConflictPolicy: "USE_EXISTING",
        workflowIdReusePolicy: "REJECT_DUPLICATE",
        workflowExecutionTimeout: "6 hours",
        staticSummary: `Users export ${input.exportId}`,
        typedSearchAttributes: startSearchAttributes(input.environmentId),
      });
    },
    // A message is delivered once: starting it again (the dispatcher's crash recovery) joins the running
    // workflow, and a finished one is never repeated (REJECT_DUPLICATE: the start fails, which is fine).
    async startWebhookDelivery(input) {
      const redelivery = input.redelivery ?? 0;
      try {
        await client.workflow.start(webhookDeliveryWorkflow, {
          taskQueue: webhookTaskQueue,
          workflowId: workflowIds.webhookDelivery(input.messageId, redelivery),
          args: [{ environmentId: input.environmentId, messageId: input.messageId, redelivery }],
          workflowIdConflictPolicy: "USE_EXISTING",
          workflowIdReusePolicy: "REJECT_DUPLICATE",
          staticSummary: `Webhook ${redelivery ? `redelivery ${redelivery}` : "delivery"} of message ${input.messageId}`,
          staticDetails: `Environment ${input.environmentId}. Memo: event name, endpoint host, environment kind.`,
          typedSearchAttributes: startSearchAttributes(input.environmentId),
        });
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return;
        throw err;
      }
    },
    // New messages: their endpoints' actors are woken (started when not running), once per endpoint.
    async wakeWebhookEndpoints(endpoints) {
      const failed = await wakeActors(
        client,
        endpoints.map((e) => ({
          workflow: webhookEndpointWorkflow,
          workflowId: workflowIds.webhookEndpoint(e.webhookId),
          taskQueue: webhookTaskQueue,
          args: [{ environmentId: e.environmentId, webhookId: e.webhookId }] as [{ environmentId: string; webhookId: string }],
          staticSummary: `Webhook deliveries of endpoint ${e.webhookId}`,
          typedSearchAttributes: startSearchAttributes(e.environmentId),
        })),
      );
      if (failed.length) throw failed[0]!.error;
    },
    // The Update id names the room: a retried request reaches the same Update, not a second one. Signing and
    // key generation no longer come here (they run on the request path); the actor keeps their handlers for
    // the histories that hold them.
    async runWaasRoom(input) {
      const wallet = { environmentId: input.environmentId, walletId: input.walletId, userId: input.userId };
      try {
        const exportWorkflowId = input.exportId ? workflowIds.walletExport(input.walletId, input.exportId) : undefined;
        await runWaasWalletOperation(client, taskQueue, wallet, runRoomUpdate, { roomId: input.roomId, operation: input.operation, ...(exportWorkflowId ? { exportWorkflowId } : {}) }, `${input.operation}:${input.roomId}`);
      } catch (err) {
        throw domainErrorOfUpdate(err) ?? err;
      }
    },
    async runWaasBackup({ walletId, userId, ...step }) {
      try {
        return await runWaasWalletOperation(client, taskQueue, { environmentId: step.environmentId, walletId, userId }, backupUpdate, step);
      } catch (err) {
        throw domainErrorOfUpdate(err) ?? err;
      }
    },
    async runWaasRecover({ walletId, userId, ...step }) {
      try {
        return await runWaasWalletOperation(client, taskQueue, { environmentId: step.environmentId, walletId, userId }, recoverUpdate, step);
      } catch (err) {
        throw domainErrorOfUpdate(err) ?? err;
      }
    },
  };
}
