import { actorId } from "./actor.js";

/**
 * Workflow ids and task queues: the only place their formats are written. Ids are readable so operators
 * can find a flow in the Temporal UI, and stable so that one user's recovery never runs twice at once.
 *
 * The task queues derived from the configured one (TEMPORAL_TASK_QUEUE). Interactive flows (exports, wallet
 * recovery, threshold wallets' operations) run on the configured queue itself; webhook delivery, bulk work whose
 * backlog can be large, on a queue of its own served by a worker with its own limits, so that a tenant's
 * delivery backlog never queues ahead of another tenant's export or recovery (fairness between tenants).
 */
export function taskQueues(configured: string) {
  return { interactive: configured, webhooks: `${configured}-webhooks` };
}

export const workflowIds = {
  /**
   * The restore of a user's soft-deleted wallets (walletRecoveryWorkflow), not a WaaS key recovery (the
   * wallet actor's `recover`). Runs started as wallet-recovery/<environmentId>/<userId> finish under that id;
   * nothing looks them up by it, and a restore started beside one changes nothing twice (it is idempotent).
   */
  walletRecovery: (environmentId: string, userId: string) => `deleted-wallets-restore/${environmentId}/${userId}`,
  /** The users export (exportUsersWorkflow); runs started as export/<exportId> finish under that id. */
  export: (exportId: string) => `users-export/${exportId}`,
  /** The actor owning a WaaS wallet's key-share lifecycle: every operation is an Update on it. */
  waasWallet: (walletId: string) => actorId("waas-wallet", walletId),
  /** One export of a wallet's key; `exportId` names the request, so a retried one is found again. */
  walletExport: (walletId: string, exportId: string) => `wallet-export/${walletId}/${exportId}`,
  /** The actor delivering an endpoint's messages (src/temporal/actor.ts). */
  webhookEndpoint: (webhookId: string) => actorId("webhook-endpoint", webhookId),
  /**
   * One workflow per message: redeliveries, and original deliveries started before the endpoint actors
   * existed, or directly by an operator.
   */
  webhookDelivery: (messageId: string, redelivery = 0) =>
    redelivery > 0 ? `webhook-delivery/${messageId}/redelivery-${redelivery}` : `webhook-delivery/${messageId}`,
};
