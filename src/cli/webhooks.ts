import type { Client } from "@temporalio/client";
import type { Config } from "../config.js";
import * as operator from "../db/repositories/operator.js";
import { findEnvironment } from "../db/repositories/tenancy.js";
import { findWebhook } from "../db/repositories/webhooks.js";
import { DomainError } from "../errors.js";
import { redeliverWebhookMessage } from "../domain/webhooks/service.js";
import { SEARCH_ATTRIBUTES } from "../workflows/search-attributes.js";
import { notFoundError, optionalUuid, parseCommand, sinceArg, uuidArg } from "./args.js";
import { withDatabase } from "./database.js";
import { environmentAccess } from "./environment-access.js";
import { formatTable, printResult, usageError } from "./output.js";
import { createProgress } from "./progress.js";
import { cliActor, withDeps } from "./services.js";

export const WEBHOOKS_USAGE = `usage: sigil webhooks backlog [--environment ID] [--json]
       sigil webhooks redrive --environment ID [--endpoint WEBHOOK_ID] [--since TIME|DURATION] [--json]`;

/** `sigil webhooks backlog|redrive`. */
export async function webhooksCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "backlog") return backlog(rest, config);
  if (sub === "redrive") return redrive(rest, config);
  throw usageError(sub ? `unknown subcommand webhooks ${sub}` : "missing subcommand", WEBHOOKS_USAGE);
}

async function backlog(args: string[], config: Config): Promise<number> {
  const { values } = parseCommand(args, { environment: { type: "string" } }, WEBHOOKS_USAGE);
  const environmentId = optionalUuid(values.environment, "--environment", WEBHOOKS_USAGE);
  const endpoints = await withDatabase(
    config,
    async (db) => {
      if (environmentId && !(await findEnvironment(db, environmentId))) throw notFoundError("environment", environmentId);
      return operator.webhookBacklog(db, environmentId);
    },
    { migrate: false },
  );
  printResult(!!values.json, { endpoints }, () =>
    formatTable(endpoints, [
      ...(environmentId ? [] : [{ header: "environment", value: (e: operator.BacklogRow) => e.environmentId }]),
      { header: "endpoint", value: (e) => e.webhookId },
      { header: "url", value: (e) => e.url },
      { header: "enabled", value: (e) => (e.enabled ? "yes" : "no") },
      { header: "pending", value: (e) => e.pending },
      { header: "failed", value: (e) => e.failed },
      { header: "delivered", value: (e) => e.delivered },
      { header: "cancelled", value: (e) => e.cancelled },
      { header: "oldest pending", value: (e) => e.oldestPendingAt },
    ]),
  );
  return 0;
}

/**
 * The messages of an environment whose redelivery workflow (webhook-delivery/<messageId>/redelivery-<n>) is
 * still running: a redrive run again while they are in flight leaves them alone rather than sending twice.
 */
async function redeliveriesInFlight(client: Client, environmentId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  const query = `${SEARCH_ATTRIBUTES.environmentId.name} = "${environmentId}" AND WorkflowId STARTS_WITH "webhook-delivery/" AND ExecutionStatus = "Running"`;
  for await (const w of client.workflow.list({ query })) {
    const m = /^webhook-delivery\/([0-9a-f-]{36})\/redelivery-\d+$/.exec(w.workflowId);
    if (m) ids.add(m[1]!);
  }
  return ids;
}

interface Skipped {
  messageId: string;
  webhookId: string;
  reason: string;
}

/**
 * Sends the failed messages again, one redelivery each, exactly as the API's redeliver operation does (counted,
 * audited, its own workflow). Idempotent: a message delivered since is no longer failed, and one whose
 * redelivery is still running is skipped; a message of a disabled endpoint is skipped with the reason.
 */
async function redrive(args: string[], config: Config): Promise<number> {
  const { values } = parseCommand(args, { environment: { type: "string" }, endpoint: { type: "string" }, since: { type: "string" } }, WEBHOOKS_USAGE);
  const json = !!values.json;
  const environmentId = uuidArg(values.environment, "--environment", WEBHOOKS_USAGE);
  const webhookId = optionalUuid(values.endpoint, "--endpoint", WEBHOOKS_USAGE);
  const since = values.since === undefined ? undefined : sinceArg(values.since, "--since", WEBHOOKS_USAGE);
  const actor = cliActor();
  const result = await withDeps(config, { temporal: true }, async (deps, client) => {
    const access = await environmentAccess(deps.db, environmentId, actor);
    if (webhookId && !(await findWebhook(deps.db, environmentId, webhookId))) throw notFoundError("webhook endpoint", `${webhookId} in environment ${environmentId}`);
    const failed = await operator.failedWebhookMessages(deps.db, environmentId, { webhookId, since });
    const inFlight = await redeliveriesInFlight(client!, environmentId);
    const redriven: string[] = [];
    const skipped: Skipped[] = [];
    const progress = failed.length ? createProgress({ total: failed.length, label: "redriving", json }) : undefined;
    try {
      for (const m of failed) {
        if (inFlight.has(m.id)) skipped.push({ messageId: m.id, webhookId: m.webhookId, reason: "redelivery_in_flight" });
        else {
          try {
            await redeliverWebhookMessage(deps, access, m.webhookId, m.id);
            redriven.push(m.id);
          } catch (err) {
            // The endpoint disabled or deleted meanwhile: that message is not this run's to send.
            if (!(err instanceof DomainError) || err.kind === "internal") throw err;
            skipped.push({ messageId: m.id, webhookId: m.webhookId, reason: err.code });
          }
        }
        progress?.tick();
      }
    } finally {
      progress?.done();
    }
    return { environmentId, failed: failed.length, redriven, skipped, requestId: actor.requestId };
  });
  printResult(json, result, () =>
    [
      `${result.redriven.length} of ${result.failed} failed message${result.failed === 1 ? "" : "s"} redriven (audit request id ${result.requestId})`,
      ...(result.skipped.length
        ? ["skipped:", formatTable(result.skipped, [
            { header: "message", value: (s) => s.messageId },
            { header: "endpoint", value: (s) => s.webhookId },
            { header: "reason", value: (s) => s.reason },
          ])]
        : []),
    ].join("\n"),
  );
  return 0;
}
