/**
 * Records the event history of one real webhook endpoint actor (src/workflows/webhook-endpoint.ts) into
 * test/workflows/histories/, for the replay test: two messages (one answered 500), a wake signal while the
 * actor sleeps until that retry, the retry answered 200, then a fourth message whose wake finds the history
 * "full" so the actor continues as new; the new run delivers it and ends after its quiet minute.
 *   <file> (default webhook-endpoint.json): the first run (batches, retry sleep, signal, continue-as-new);
 *   <file>-idle.json: the second run (one batch, the idle timer, the end).
 * Run it when the workflow changes on purpose (with a versioning patch for running flows), into new files:
 *   DATABASE_URL=... REDIS_URL=... npx tsx scripts/record-webhook-endpoint-history.ts [file]
 *
 * Continue-as-new is the server's suggestion here: the actor's own limit (DEFAULT_ACTOR_POLICY, 2000 events)
 * is not an input, so the script starts a private Temporal dev server whose suggestion threshold is low
 * (dynamic config limit.historyCount.suggestContinueAsNew); the workflow code runs unchanged. Postgres and
 * Redis are the dev servers'. Takes about 75 s (the quiet minute is real time).
 */
import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { NativeConnection, Worker } from "@temporalio/worker";
import { createActivities } from "../src/activities/index.js";
import { DEFAULT_WEBHOOK_SETTINGS, loadConfig } from "../src/config.js";
import { closeDatabase, connectDatabase } from "../src/db/db.js";
import { migrate } from "../src/db/migrate.js";
import { buildDeps } from "../src/deps.js";
import { bootstrapTenant } from "../src/domain/tenancy/bootstrap.js";
import { insertPingMessage } from "../src/domain/webhooks/messages.js";
import { newWebhookSecret, sealWebhookSecret } from "../src/domain/webhooks/secret.js";
import { startManagedProcess } from "../src/infra/managed-process.js";
import { findFreePort } from "../src/infra/ports.js";
import { findTemporalCli } from "../src/infra/temporal-dev-server.js";
import { createStore } from "../src/store/store.js";
import { connectTemporalClient, createFlows } from "../src/temporal/flows.js";
import { taskQueues, workflowIds } from "../src/temporal/ids.js";
import { workflowsPath } from "../src/temporal/worker.js";
import type { WebhookEndpointResult } from "../src/workflows/webhook-endpoint.js";

const { DATABASE_URL, REDIS_URL } = process.env;
if (!DATABASE_URL) throw new Error("set DATABASE_URL (and REDIS_URL)");
// The server suggests continue-as-new on workflow tasks from this history length on. In the first run the
// task after batch 3 (event ~40) is the first so marked; the actor then sleeps its quiet minute, and the
// fourth message's wake brings it to the top of its loop, where it continues as new. Lower, and it would
// continue as new before the retry; the shape check below notices either.
const SUGGEST_CONTINUE_AS_NEW_AT = Number(process.env.SUGGEST_CONTINUE_AS_NEW_AT ?? 38);

const cli = findTemporalCli();
if (!cli) throw new Error("no Temporal CLI found: npm run tools:temporal");
const temporalPort = await findFreePort();
const address = `127.0.0.1:${temporalPort}`;
const temporal = startManagedProcess(cli, [
  "server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", String(temporalPort), "--log-level", "warn",
  "--dynamic-config-value", `limit.historyCount.suggestContinueAsNew=${SUGGEST_CONTINUE_AS_NEW_AT}`,
]);
const client = await (async () => {
  for (let i = 0; ; i++) {
    try {
      const c = await connectTemporalClient(address, "default");
      await c.connection.workflowService.describeNamespace({ namespace: "default" });
      return c;
    } catch (err) {
      if (i > 120) throw new Error(`private Temporal dev server did not start: ${temporal.recentOutput()}`, { cause: err });
      await sleep(500);
    }
  }
})();

// The loopback receiver: the first request is answered 500, every later one 200.
const answers: number[] = [];
const receiver = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    answers.push(answers.length === 0 ? 500 : 200);
    res.writeHead(answers.at(-1)!).end("ok");
  });
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const port = (receiver.address() as AddressInfo).port;

const db = connectDatabase(DATABASE_URL);
await migrate(db);
const store = await createStore(REDIS_URL, { keyPrefix: `record:${randomUUID()}:` });
// Sandbox schedule: at once, then the retry 3 s later (long enough for the wake to land in that sleep).
const webhooks = { ...DEFAULT_WEBHOOK_SETTINGS, schedule: { live: [0, 3000], sandbox: [0, 3000] } };
const config = { ...loadConfig({ ...process.env, LOG_LEVEL: "warn", SIGIL_SEALING_KEYS: `record:${randomBytes(32).toString("base64")}` }), webhooks };
const taskQueue = `record-${randomUUID()}`;
const flows = createFlows(client, taskQueue);
const deps = buildDeps({ config, db, store, flows });
const tenant = await bootstrapTenant(db);
const webhookId = randomUUID();
await db.none(
  `INSERT INTO webhooks (id, environment_id, url, event_names, secret_sealed, enabled_at) VALUES ($1, $2, $3, '{}', $4, now())`,
  [webhookId, tenant.environmentId, `http://127.0.0.1:${port}/hook`, sealWebhookSecret(deps.sealer, webhookId, newWebhookSecret())],
);
const target = { webhookId, environmentId: tenant.environmentId, environmentName: "sandbox" };
const workflowId = workflowIds.webhookEndpoint(webhookId);
// A new message is woken the way the dispatcher does it (signalWithStart through src/temporal/actor.ts).
const send = async (count: number) => {
  for (let i = 0; i < count; i++) await insertPingMessage(db, target);
  await flows.wakeWebhookEndpoints([{ environmentId: tenant.environmentId, webhookId }]);
};
const handle = client.workflow.getHandle(workflowId);
/** Waits until the current run has started `n` timers (the actor's sleeps), i.e. it sleeps after batch n. */
const untilTimers = async (n: number) => {
  let events: Awaited<ReturnType<typeof handle.fetchHistory>>["events"] = [];
  for (let i = 0; i < 240; i++) {
    events = (await handle.fetchHistory()).events ?? [];
    if (events.filter((e) => e.timerStartedEventAttributes).length >= n) return;
    await sleep(250);
  }
  throw new Error(`the actor never started timer ${n}; its run so far: ${events.map((e) => `${e.eventId} ${e.eventType}`).join(", ")}`);
};

const connection = await NativeConnection.connect({ address });
const worker = await Worker.create({ connection, taskQueue: taskQueues(taskQueue).webhooks, workflowsPath, activities: createActivities(deps) });
const result = await worker.runUntil(async () => {
  // Batch 1: one 500 (retry in 3 s), one 200. The start's own wake is still unread, so an empty batch follows
  // before the actor sleeps until the retry.
  await send(2);
  const firstRunId = (await handle.describe()).runId;
  await untilTimers(1);
  await send(1); // the wake cancels that sleep; batch 2 delivers it, and the actor sleeps again
  await untilTimers(3); // the retry's timer fired, batch 3 delivered it (200), the actor sleeps its quiet minute
  await send(1); // this wake finds the history "full": the actor continues as new, and the new run delivers it
  const r: WebhookEndpointResult = await handle.result(); // follows the runs to the end: idle after a minute
  return { firstRunId, lastRunId: (await handle.describe()).runId, r };
});

const delivered = await db.one<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_messages WHERE webhook_id = $1 AND status = 'delivered'`, [webhookId]);
if (result.r.status !== "idle" || result.firstRunId === result.lastRunId || delivered.n !== 4 || answers.join() !== "500,200,200,200,200") {
  const first = (await client.workflow.getHandle(workflowId, result.firstRunId).fetchHistory()).events ?? [];
  const events = first.map((e) => `${e.eventId} ${e.eventType}`).join(", ");
  throw new Error(`unexpected run: ${JSON.stringify({ ...result, delivered: delivered.n, answers })}; first run: ${events}`);
}
const dir = path.join(import.meta.dirname, "../test/workflows/histories");
const file = process.argv[2] ?? "webhook-endpoint.json";
// Each run's shape, so that a threshold off by a few events (continue-as-new a turn early or late) is noticed:
// batches (activities), sleeps (timers started / fired / cancelled by a wake), wakes, and how the run ended.
const runs = [
  { runId: result.firstRunId, name: file, shape: "activities ok, timers 3, fired 1, cancelled 2, signals 3, end CONTINUED_AS_NEW" },
  { runId: result.lastRunId, name: file.replace(/\.json$/, "-idle.json"), shape: "activities ok, timers 1, fired 1, cancelled 0, signals 0, end COMPLETED" },
];
// Batches: at least one per wake or fired timer (3 in the first run, 1 in the second); a wake read after a
// batch (the start's own, or one that came during the batch) adds a batch without a sleep (3 recorded).
const shapeActivities = (name: string) => (name === file ? 3 : 1);
for (const { runId, name, shape } of runs) {
  const json = execFileSync(cli, ["workflow", "show", "-w", workflowId, "-r", runId, "-o", "json", "--address", address], { encoding: "utf8" });
  const types: string[] = JSON.parse(json).events.map((e: { eventType: string }) => e.eventType.replace("EVENT_TYPE_", ""));
  const count = (t: string) => types.filter((x) => x === t).length;
  const got =
    `activities ${count("ACTIVITY_TASK_COMPLETED") >= shapeActivities(name) ? "ok" : count("ACTIVITY_TASK_COMPLETED")}, timers ${count("TIMER_STARTED")}, fired ${count("TIMER_FIRED")}, ` +
    `cancelled ${count("TIMER_CANCELED")}, signals ${count("WORKFLOW_EXECUTION_SIGNALED")}, end ${types.at(-1)!.replace("WORKFLOW_EXECUTION_", "")}`;
  if (got !== shape) throw new Error(`${name}: expected ${shape}, got ${got} (adjust SUGGEST_CONTINUE_AS_NEW_AT): ${types.map((t, i) => `${i + 1} ${t}`).join(", ")}`);
  writeFileSync(path.join(dir, name), json.trim() + "\n");
  console.log(`wrote ${path.join(dir, name)} (${types.length} events: ${got})`);
}
receiver.close();
await connection.close();
await client.connection.close();
await store.close();
await closeDatabase(db);
await temporal.stop(5_000);
