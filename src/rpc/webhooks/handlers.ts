import type { ConnectRouter } from "@connectrpc/connect";
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { WebhooksService } from "../../gen/sigil/webhooks/v0/webhooks_service_pb.js";
import type { WebhookDeliverySchema, WebhookMessageSchema, WebhookSchema } from "../../gen/sigil/webhooks/v0/webhooks_pb.js";
import type { WebhookDeliveryRecord, WebhookMessageRecord, WebhookRecord } from "../../db/repositories/webhooks.js";
import type { Deps } from "../../domain/deps.js";
import * as service from "../../domain/webhooks/service.js";
import { environmentAccess } from "../../domain/tenancy/access.js";
import { pageOf } from "../paging.js";
import { orNull, str, ts } from "../mappers.js";

/** The secret is only set by the operations that exist to return it (create and rotate). */
function toWebhook(w: WebhookRecord, secret?: string): MessageInitShape<typeof WebhookSchema> {
  return {
    id: w.id,
    environmentId: w.environmentId,
    url: w.url,
    events: w.eventNames,
    description: str(w.description),
    isEnabled: w.enabledAt !== null,
    enabledAt: ts(w.enabledAt),
    disabledReason: str(w.disabledReason),
    secret: secret ?? "",
    createdAt: ts(w.createdAt),
    updatedAt: ts(w.updatedAt),
  };
}

function toMessage(m: WebhookMessageRecord): MessageInitShape<typeof WebhookMessageSchema> {
  return {
    id: m.id,
    webhookId: m.webhookId,
    eventId: str(m.eventId),
    eventName: m.eventName,
    status: m.status,
    attempts: m.attempts,
    redeliveries: m.redeliveries,
    createdAt: ts(m.createdAt),
    deliveredAt: ts(m.deliveredAt),
    nextAttemptAt: ts(m.nextAttemptAt),
    // jsonb round-trips to JSON values; a Struct takes exactly those.
    payload: m.payload as JsonObject,
  };
}

function toDelivery(d: WebhookDeliveryRecord): MessageInitShape<typeof WebhookDeliverySchema> {
  return {
    id: d.id,
    attempt: d.attempt,
    redelivery: d.redelivery,
    requestUrl: d.requestUrl,
    responseStatus: d.responseStatus ?? 0,
    responseBodyExcerpt: str(d.responseBodyExcerpt),
    error: str(d.error),
    startedAt: ts(d.startedAt),
    durationMs: d.durationMs,
  };
}

export function registerWebhooks(router: ConnectRouter, deps: Deps) {
  router.service(WebhooksService, {
    async listWebhooks(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      const { items, count } = await service.listWebhooks(deps, access, pageOf(req));
      return { webhooks: items.map((w) => toWebhook(w)), count };
    },
    async createWebhook(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      const { webhook, secret } = await service.createWebhook(deps, access, {
        url: req.url,
        description: orNull(req.description),
        events: req.events,
        enabled: req.isEnabled ?? true,
      });
      return { webhook: toWebhook(webhook, secret) };
    },
    async getWebhook(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return { webhook: toWebhook(await service.getWebhook(deps, access, req.webhookId)) };
    },
    async updateWebhook(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      const updated = await service.updateWebhook(deps, access, req.webhookId, {
        url: req.url,
        description: req.description === undefined ? undefined : orNull(req.description),
        events: req.events.length > 0 ? req.events : undefined,
        enabled: req.isEnabled,
      });
      return { webhook: toWebhook(updated) };
    },
    async deleteWebhook(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      await service.deleteWebhook(deps, access, req.webhookId);
      return {};
    },
    async enableWebhook(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return { webhook: toWebhook(await service.setWebhookEnabled(deps, access, req.webhookId, true)) };
    },
    async disableWebhook(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return { webhook: toWebhook(await service.setWebhookEnabled(deps, access, req.webhookId, false)) };
    },
    async rotateWebhookSecret(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      const { webhook, secret } = await service.rotateWebhookSecret(deps, access, req.webhookId);
      return { webhook: toWebhook(webhook, secret) };
    },
    async listWebhookMessages(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      const { items, count } = await service.listWebhookMessages(deps, access, req.webhookId, { ...pageOf(req), status: req.status || undefined });
      return { messages: items.map(toMessage), count };
    },
    async getWebhookMessageDeliveries(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      const { message, deliveries } = await service.getWebhookMessageDeliveries(deps, access, req.webhookId, req.messageId);
      return { message: toMessage(message), deliveries: deliveries.map(toDelivery), count: deliveries.length };
    },
    async redeliverWebhookMessage(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      const message = await service.redeliverWebhookMessage(deps, access, req.webhookId, req.messageId);
      return { message: toMessage(message), redelivery: message.redeliveries };
    },
  });
}
