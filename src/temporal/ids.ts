/**
 * Workflow ids and task queues: the only place their formats are written. Ids are readable so operators
 * can find a flow in the Temporal UI, and stable so that one user's recovery never runs twice at once.
 */
export const DEFAULT_TASK_QUEUE = "sigil";

export const workflowIds = {
  walletRecovery: (environmentId: string, userId: string) => `wallet-recovery/${environmentId}/${userId}`,
  export: (exportId: string) => `export/${exportId}`,
  /** One workflow per message and endpoint; a redelivery is a workflow of its own. */
  webhookDelivery: (messageId: string, redelivery = 0) =>
    redelivery > 0 ? `webhook-delivery/${messageId}/redelivery-${redelivery}` : `webhook-delivery/${messageId}`,
};
