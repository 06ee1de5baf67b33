import type { Flows } from "../../domain/deps.js";
import { DomainError } from "../../errors.js";
import { exportUsersWorkflow } from "../../workflows/export-users.js";
import { waasWalletWorkflow } from "../../workflows/waas-wallet.js";
import { walletRecoveryWorkflow } from "../../workflows/wallet-recovery.js";
import { webhookDeliveryWorkflow } from "../../workflows/webhook-delivery.js";
import { webhookEndpointWorkflow } from "../../workflows/webhook-endpoint.js";
import type { Instruments } from "./instruments.js";

/** The workflow type each flow starts (or reaches with Update-with-Start / signal-with-start): src/temporal/flows.ts. */
const WORKFLOW_TYPE: Record<keyof Flows, string> = {
  recoverWallets: walletRecoveryWorkflow.name,
  startExport: exportUsersWorkflow.name,
  startWebhookDelivery: webhookDeliveryWorkflow.name,
  wakeWebhookEndpoints: webhookEndpointWorkflow.name,
  runWaasRoom: waasWalletWorkflow.name,
  runWaasBackup: waasWalletWorkflow.name,
  runWaasRecover: waasWalletWorkflow.name,
};

/**
 * Counts the starts each flow asks of the engine, per workflow type, and those the engine did not accept or
 * answer (an error other than a DomainError: a refusal of the operation itself, such as a room's, is the
 * domain's answer, not a failed start). How workflows end is counted by the worker's own Temporal metrics
 * (temporal_workflow_failed and the like, on the same /metrics).
 */
export function countedFlows(flows: Flows, m: Instruments): Flows {
  const counted = {} as Record<keyof Flows, unknown>;
  for (const name of Object.keys(WORKFLOW_TYPE) as (keyof Flows)[]) {
    const workflowType = WORKFLOW_TYPE[name];
    const call = flows[name] as (input: unknown) => Promise<unknown>;
    counted[name] = async (input: unknown) => {
      m.workflowStarts.inc({ workflow_type: workflowType }, Array.isArray(input) ? input.length : 1);
      try {
        return await call.call(flows, input);
      } catch (err) {
        if (!(err instanceof DomainError)) m.workflowStartFailures.inc({ workflow_type: workflowType });
        throw err;
      }
    };
  }
  return counted as Flows;
}
