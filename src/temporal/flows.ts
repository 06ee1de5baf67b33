import { Client, Connection } from "@temporalio/client";
import type { Flows } from "../domain/deps.js";
import { exportUsersWorkflow } from "../workflows/export-users.js";
import { walletRecoveryWorkflow } from "../workflows/wallet-recovery.js";
import { workflowIds } from "./ids.js";

export async function connectTemporalClient(address: string, namespace: string): Promise<Client> {
  const connection = await Connection.connect({ address });
  return new Client({ connection, namespace });
}

/**
 * The domain's view of durable flows. A recovery already running for the same user is joined rather than
 * started twice (USE_EXISTING); a finished one may run again (ALLOW_DUPLICATE).
 */
export function createFlows(client: Client, taskQueue: string): Flows {
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
      });
    },
  };
}
