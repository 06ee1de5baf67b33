import { WebhooksApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** WebhooksApi: one scenario per operation, keyed `WebhooksApi.<operation>`, run in this order. */
export const webhooksApi: Scenarios = {
  "WebhooksApi.createWebhook": async ({ api, tenant, state }) => {
    // Sandbox environments accept http on loopback; creating an enabled endpoint queues its ping message.
    const webhook = await api(WebhooksApi).createWebhook({
      environmentId: tenant.environmentId,
      webhookCreateRequest: { url: "http://127.0.0.1:9/hooks", isEnabled: true, events: ["user.created"] },
    });
    state.webhookId = webhook.webhookId;
  },
  "WebhooksApi.getWebhooks": ({ api, tenant }) => api(WebhooksApi).getWebhooks({ environmentId: tenant.environmentId }),
  "WebhooksApi.getWebhook": ({ api, tenant, state }) => api(WebhooksApi).getWebhook({ environmentId: tenant.environmentId, webhookId: state.webhookId }),
  "WebhooksApi.updateWebhookById": ({ api, tenant, state }) =>
    api(WebhooksApi).updateWebhookById({
      environmentId: tenant.environmentId,
      webhookId: state.webhookId,
      webhookUpdateRequest: { url: "http://127.0.0.1:9/hooks/v2", isEnabled: true, events: ["*"] },
    }),
  "WebhooksApi.getWebhookMessages": async ({ api, tenant, state }) => {
    const page = await api(WebhooksApi).getWebhookMessages({ environmentId: tenant.environmentId, webhookId: state.webhookId });
    state.messageId = page.data?.[0]?.messageId;
  },
  "WebhooksApi.getWebhookMessageDeliveries": ({ api, tenant, state }) =>
    api(WebhooksApi).getWebhookMessageDeliveries({ environmentId: tenant.environmentId, webhookId: state.webhookId, messageId: state.messageId }),
  "WebhooksApi.redeliverWebhookMessage": ({ api, tenant, state }) =>
    api(WebhooksApi).redeliverWebhookMessage({ environmentId: tenant.environmentId, webhookId: state.webhookId, messageId: state.messageId }),
  "WebhooksApi.deleteWebhookById": ({ api, tenant, state }) =>
    api(WebhooksApi).deleteWebhookById({ environmentId: tenant.environmentId, webhookId: state.webhookId }),
};
