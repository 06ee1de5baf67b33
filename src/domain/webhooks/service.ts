import { DomainError, badRequest, notFound, unprocessable } from "../../errors.js";
import * as webhooks from "../../db/repositories/webhooks.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import { isEventName } from "../events/catalogue.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { insertPingMessage } from "./messages.js";
import { newWebhookSecret, sealWebhookSecret } from "./secret.js";
import { ALL_EVENTS } from "./subscriptions.js";
import { checkWebhookUrl, destinationRules } from "../../net/destination-policy.js";

/** Endpoints per environment: each one multiplies the delivery work of every event. */
export const MAX_WEBHOOKS_PER_ENVIRONMENT = 20;


/**
 * The subscriptions of a webhook: catalogue names (GET /eventTypes), deduplicated, or ["*"]. Client events
 * (`client.*`) and names outside the catalogue are refused: a typo would otherwise silently receive nothing.
 */
export function normalizeEventNames(names: readonly string[]): string[] {
  if (names.length === 0) throw badRequest("events_required", "events must name at least one event type (or \"*\" for all)", { field: "events" });
  if (names.includes(ALL_EVENTS)) return [ALL_EVENTS];
  const unknown = names.filter((n) => !isEventName(n));
  if (unknown.length > 0)
    throw badRequest("unknown_event_name", `unknown event name${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")} (see GET /eventTypes)`, {
      field: "events",
      eventNames: unknown,
    });
  return [...new Set(names)];
}

/** What the audit trail (and the webhook.* events) keep of a webhook: everything but the sealed secret. */
export function webhookAuditView(w: webhooks.WebhookRecord) {
  const { secretSealed: _sealed, ...rest } = w;
  return rest;
}

/** Starts the delivery of a stored message after its transaction committed. */
async function startDelivery(deps: Deps, input: { environmentId: string; messageId: string; redelivery?: number }) {
  await deps.flows.startWebhookDelivery(input);
}

export interface CreateWebhookInput {
  url: string;
  description: string | null;
  events: readonly string[];
  enabled: boolean;
}

/**
 * Creates an endpoint with a fresh signing secret (returned here only) and, when it is enabled, its `ping`
 * message, in one transaction with the audit row; the ping's delivery starts once that has committed.
 */
export async function createWebhook(deps: Deps, access: EnvironmentAccess, input: CreateWebhookInput) {
  const url = checkWebhookUrl(input.url, destinationRules(deps.config.webhooks, access.environmentName));
  const eventNames = normalizeEventNames(input.events);
  const id = webhooks.newWebhookId();
  const secret = newWebhookSecret();
  const { webhook, pingMessageId } = await audited(deps, access, async (t, record) => {
    await webhooks.lockEnvironmentWebhooks(t, access.environmentId);
    if ((await webhooks.countWebhooks(t, access.environmentId)) >= MAX_WEBHOOKS_PER_ENVIRONMENT)
      throw unprocessable("webhook_limit_reached", `an environment can have at most ${MAX_WEBHOOKS_PER_ENVIRONMENT} webhooks`, {
        limit: MAX_WEBHOOKS_PER_ENVIRONMENT,
      });
    const created = await webhooks.insertWebhook(t, access.environmentId, id, {
      url,
      description: input.description,
      eventNames,
      secretSealed: sealWebhookSecret(deps.sealer, id, secret),
      enabled: input.enabled,
    });
    await record({ action: "webhook.created", resourceType: "webhook", resourceId: id, after: webhookAuditView(created) });
    const ping = input.enabled
      ? await insertPingMessage(t, { webhookId: id, environmentId: access.environmentId, environmentName: access.environmentName })
      : null;
    return { webhook: created, pingMessageId: ping?.messageId ?? null };
  });
  if (pingMessageId) {
    // The endpoint exists whatever happens here; a ping that could not be started can be redelivered.
    await deps.flows.wakeWebhookEndpoints([{ environmentId: access.environmentId, webhookId: id }]).catch((err) =>
      deps.log.warn("could not start the ping delivery of a new webhook", { err: String(err), webhookId: id, messageId: pingMessageId }),
    );
  }
  return { webhook, secret, pingMessageId };
}

export function listWebhooks(deps: Deps, access: EnvironmentAccess, page: { offset: number; limit: number }) {
  return webhooks.listWebhooks(deps.db, access.environmentId, page);
}

export async function getWebhook(deps: Deps, access: EnvironmentAccess, webhookId: string) {
  const w = await webhooks.findWebhook(deps.db, access.environmentId, webhookId);
  if (!w) throw notFound("webhook");
  return w;
}

export interface UpdateWebhookInput {
  url?: string;
  /** null clears it. */
  description?: string | null;
  /** Replaces the subscriptions when given. */
  events?: readonly string[];
  enabled?: boolean;
}

export async function updateWebhook(deps: Deps, access: EnvironmentAccess, webhookId: string, input: UpdateWebhookInput) {
  const changes: webhooks.WebhookChanges = {
    url: input.url === undefined ? undefined : checkWebhookUrl(input.url, destinationRules(deps.config.webhooks, access.environmentName)),
    description: input.description,
    eventNames: input.events === undefined ? undefined : normalizeEventNames(input.events),
    enabled: input.enabled,
  };
  return audited(deps, access, async (t, record) => {
    const before = await webhooks.findWebhook(t, access.environmentId, webhookId, { forUpdate: true });
    if (!before) throw notFound("webhook");
    const after = await webhooks.updateWebhook(t, access.environmentId, webhookId, changes);
    if (!after) throw notFound("webhook");
    await record({ action: "webhook.updated", resourceType: "webhook", resourceId: webhookId, before: webhookAuditView(before), after: webhookAuditView(after) });
    return after;
  });
}

/** Enables or disables an endpoint; a disabled one gets no new messages. Enabling clears a failure streak. */
export async function setWebhookEnabled(deps: Deps, access: EnvironmentAccess, webhookId: string, enabled: boolean) {
  return audited(deps, access, async (t, record) => {
    const before = await webhooks.findWebhook(t, access.environmentId, webhookId, { forUpdate: true });
    if (!before) throw notFound("webhook");
    const after = await webhooks.updateWebhook(t, access.environmentId, webhookId, { enabled });
    if (!after) throw notFound("webhook");
    await record({
      action: enabled ? "webhook.enabled" : "webhook.disabled",
      resourceType: "webhook",
      resourceId: webhookId,
      before: { enabledAt: before.enabledAt, disabledReason: before.disabledReason },
      after: { enabledAt: after.enabledAt, disabledReason: after.disabledReason },
    });
    return after;
  });
}

export async function deleteWebhook(deps: Deps, access: EnvironmentAccess, webhookId: string) {
  await audited(deps, access, async (t, record) => {
    const before = await webhooks.findWebhook(t, access.environmentId, webhookId, { forUpdate: true });
    if (!before) throw notFound("webhook");
    await webhooks.deleteWebhook(t, access.environmentId, webhookId);
    await record({ action: "webhook.deleted", resourceType: "webhook", resourceId: webhookId, before: webhookAuditView(before) });
  });
}

/** Replaces the signing secret; the new one is returned here only. The audit row says when, never what. */
export async function rotateWebhookSecret(deps: Deps, access: EnvironmentAccess, webhookId: string) {
  const secret = newWebhookSecret();
  const webhook = await audited(deps, access, async (t, record) => {
    const before = await webhooks.findWebhook(t, access.environmentId, webhookId, { forUpdate: true });
    if (!before) throw notFound("webhook");
    const after = await webhooks.updateWebhook(t, access.environmentId, webhookId, { secretSealed: sealWebhookSecret(deps.sealer, webhookId, secret) });
    if (!after) throw notFound("webhook");
    await record({ action: "webhook.secret_rotated", resourceType: "webhook", resourceId: webhookId, after: { rotatedAt: after.updatedAt } });
    return after;
  });
  return { webhook, secret };
}

export async function listWebhookMessages(
  deps: Deps,
  access: EnvironmentAccess,
  webhookId: string,
  opts: { offset: number; limit: number; status?: string },
) {
  await getWebhook(deps, access, webhookId);
  const { items, count } = await webhooks.listWebhookMessages(deps.db, access.environmentId, webhookId, opts);
  return { items: await withLatestDelivery(deps, access, items), count };
}

/**
 * A message as one of its delivery attempts shows it (the published client's WebhookMessage is such a
 * pair), with the creation time of its event (null for the ping, which has none).
 */
export interface MessageView {
  message: webhooks.WebhookMessageRecord;
  delivery: webhooks.WebhookDeliveryRecord | null;
  eventCreatedAt: Date | null;
}

function eventTimes(deps: Deps, access: EnvironmentAccess, messages: webhooks.WebhookMessageRecord[]) {
  const ids = [...new Set(messages.flatMap((m) => (m.eventId ? [m.eventId] : [])))];
  return webhooks.eventCreationTimes(deps.db, access.environmentId, ids);
}

async function withLatestDelivery(deps: Deps, access: EnvironmentAccess, messages: webhooks.WebhookMessageRecord[]): Promise<MessageView[]> {
  const [latest, created] = await Promise.all([
    webhooks.latestWebhookDeliveries(deps.db, access.environmentId, messages.map((m) => m.id)),
    eventTimes(deps, access, messages),
  ]);
  return messages.map((message) => ({ message, delivery: latest.get(message.id) ?? null, eventCreatedAt: created.get(message.eventId ?? "") ?? null }));
}

/** A message of the endpoint once per delivery attempt, oldest first (404 when the message belongs to another endpoint). */
export async function getWebhookMessageDeliveries(deps: Deps, access: EnvironmentAccess, webhookId: string, messageId: string) {
  const message = await webhooks.findWebhookMessage(deps.db, access.environmentId, webhookId, messageId);
  if (!message) throw notFound("webhook message");
  const deliveries = await webhooks.listWebhookDeliveries(deps.db, access.environmentId, messageId);
  const eventCreatedAt = await eventTimes(deps, access, [message]);
  return deliveries.map((delivery): MessageView => ({ message, delivery, eventCreatedAt: eventCreatedAt.get(message.eventId ?? "") ?? null }));
}

/**
 * Sends a message again: the request is counted and audited in one transaction, then its own workflow
 * (`webhook-delivery/<messageId>/redelivery-<n>`) is started. Only enabled endpoints take redeliveries.
 */
export async function redeliverWebhookMessage(deps: Deps, access: EnvironmentAccess, webhookId: string, messageId: string) {
  const message = await audited(deps, access, async (t, record) => {
    // The webhook row before the message row, the order of every writer (a delete racing this would deadlock).
    const webhook = await webhooks.findWebhook(t, access.environmentId, webhookId, { forKeyShare: true });
    if (!webhook) throw notFound("webhook message");
    const found = await webhooks.findWebhookMessage(t, access.environmentId, webhookId, messageId, { forUpdate: true });
    if (!found) throw notFound("webhook message");
    if (!webhook.enabledAt) throw unprocessable("webhook_disabled", "the webhook is disabled: enable it before redelivering its messages");
    const counted = await webhooks.incrementRedeliveries(t, access.environmentId, messageId);
    await record({
      action: "webhook_message.redelivered",
      resourceType: "webhook_message",
      resourceId: messageId,
      after: { webhookId, eventName: counted.eventName, redelivery: counted.redeliveries },
    });
    return counted;
  });
  try {
    await startDelivery(deps, { environmentId: access.environmentId, messageId, redelivery: message.redeliveries });
  } catch (err) {
    deps.log.error("could not start a webhook redelivery", { err: String(err), messageId });
    throw new DomainError("internal", "redelivery_not_started", "the redelivery was recorded but could not be started; try again");
  }
  return message;
}
