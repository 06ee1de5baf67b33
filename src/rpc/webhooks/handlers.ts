import type { ConnectRouter } from "@connectrpc/connect";
import type { JsonObject, JsonValue, MessageInitShape } from "@bufbuild/protobuf";
import { WebhooksService } from "../../gen/sigil/webhooks/v0/webhooks_service_pb.js";
import type { WebhookMessageSchema, WebhookSchema } from "../../gen/sigil/webhooks/v0/webhooks_pb.js";
import type { WebhookDeliveryRecord, WebhookMessageRecord, WebhookRecord } from "../../db/repositories/webhooks.js";
import type { Deps } from "../../domain/deps.js";
import * as service from "../../domain/webhooks/service.js";
import type { MessageView } from "../../domain/webhooks/service.js";
import { nextCursor, pageFromCursor } from "../cursor.js";
import { orNull, str, ts } from "../mappers.js";
import { environmentOf } from "../tenant-context.js";

/** The secret is only set by the operations that exist to return it (create and rotate). */
function toWebhook(w: WebhookRecord, secret?: string): MessageInitShape<typeof WebhookSchema> {
  return {
    webhookId: w.id,
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

/** The bytes an attempt sent, as JSON when they are (they always are: the stored envelope). */
function sentBody(d: WebhookDeliveryRecord | null, m: WebhookMessageRecord): JsonValue {
  if (!d) return m.payload as JsonObject;
  try {
    return JSON.parse(d.requestBody) as JsonValue;
  } catch {
    return d.requestBody;
  }
}

/** What came back; {} while the attempt is in flight (stored before the request goes out). */
function received(d: WebhookDeliveryRecord | null): JsonObject {
  if (!d || (d.responseStatus === null && d.error === null)) return {};
  return {
    status: d.responseStatus,
    body: d.responseBodyExcerpt,
    error: d.error,
    durationMs: d.durationMs,
  };
}

function toMessage({ message: m, delivery: d, eventCreatedAt }: MessageView): MessageInitShape<typeof WebhookMessageSchema> {
  const eventTime = eventCreatedAt ?? m.createdAt;
  return {
    messageId: m.id,
    webhookId: m.webhookId,
    environmentId: m.environmentId,
    eventId: m.eventId ?? "",
    eventName: m.eventName,
    status: m.status,
    deliveryId: d?.id ?? "",
    deliveryAttempt: d?.attempt ?? 0,
    redelivery: d?.redelivery ?? false,
    deliveredAt: ts(d?.startedAt ?? m.createdAt),
    request: { url: d?.requestUrl ?? null, body: sentBody(d, m) },
    response: received(d),
    messageCreatedAt: ts(m.createdAt),
    eventReceivedAt: ts(eventTime),
    eventCreatedAt: ts(eventTime),
    attempts: m.attempts,
    redeliveries: m.redeliveries,
    nextAttemptAt: ts(m.nextAttemptAt),
    succeededAt: ts(m.deliveredAt),
    createdAt: ts(d?.createdAt ?? m.createdAt),
    updatedAt: ts(m.updatedAt),
  };
}

export function registerWebhooks(router: ConnectRouter, deps: Deps) {
  router.service(WebhooksService, {
    async listWebhooks(req, ctx) {
      const access = environmentOf(ctx);
      const page = pageFromCursor(req);
      const { items, count } = await service.listWebhooks(deps, access, page);
      return { data: items.map((w) => toWebhook(w)), cursor: nextCursor(page, items.length, count), count };
    },
    async createWebhook(req, ctx) {
      const access = environmentOf(ctx);
      const { webhook, secret } = await service.createWebhook(deps, access, {
        url: req.url,
        description: orNull(req.description),
        events: req.events,
        enabled: req.isEnabled ?? true,
      });
      return { webhook: toWebhook(webhook, secret) };
    },
    async getWebhook(req, ctx) {
      const access = environmentOf(ctx);
      return { webhook: toWebhook(await service.getWebhook(deps, access, req.webhookId)) };
    },
    async updateWebhook(req, ctx) {
      const access = environmentOf(ctx);
      const updated = await service.updateWebhook(deps, access, req.webhookId, {
        url: req.url,
        description: req.description === undefined ? undefined : orNull(req.description),
        events: req.events.length > 0 ? req.events : undefined,
        enabled: req.isEnabled,
      });
      return { webhook: toWebhook(updated) };
    },
    async deleteWebhook(req, ctx) {
      const access = environmentOf(ctx);
      await service.deleteWebhook(deps, access, req.webhookId);
      return {};
    },
    async enableWebhook(req, ctx) {
      const access = environmentOf(ctx);
      return { webhook: toWebhook(await service.setWebhookEnabled(deps, access, req.webhookId, true)) };
    },
    async disableWebhook(req, ctx) {
      const access = environmentOf(ctx);
      return { webhook: toWebhook(await service.setWebhookEnabled(deps, access, req.webhookId, false)) };
    },
    async rotateWebhookSecret(req, ctx) {
      const access = environmentOf(ctx);
      const { webhook, secret } = await service.rotateWebhookSecret(deps, access, req.webhookId);
      return { webhook: toWebhook(webhook, secret) };
    },
    async listWebhookMessages(req, ctx) {
      const access = environmentOf(ctx);
      const page = pageFromCursor(req);
      const { items, count } = await service.listWebhookMessages(deps, access, req.webhookId, { ...page, status: req.status || undefined });
      return { data: items.map(toMessage), cursor: nextCursor(page, items.length, count), count };
    },
    async getWebhookMessageDeliveries(req, ctx) {
      const access = environmentOf(ctx);
      const views = await service.getWebhookMessageDeliveries(deps, access, req.webhookId, req.messageId);
      return { data: views.map(toMessage), count: views.length };
    },
    async redeliverWebhookMessage(req, ctx) {
      const access = environmentOf(ctx);
      const message = await service.redeliverWebhookMessage(deps, access, req.webhookId, req.messageId);
      return {
        message: `redelivery ${message.redeliveries} of message ${message.id} queued`,
        messageId: message.id,
        redelivery: message.redeliveries,
      };
    },
  });
}
