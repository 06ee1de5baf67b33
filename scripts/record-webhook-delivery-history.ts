/**
 * Records the event history of one real webhook delivery (a 500, then a 2xx after the schedule's delay) into
 * test/workflows/histories/<file> (default webhook-delivery.json), for the replay test. Run it when the
 * workflow changes on purpose (with a versioning patch for running flows), into a new file:
 *   DATABASE_URL=... TEMPORAL_ADDRESS=... REDIS_URL=... npx tsx scripts/record-webhook-delivery-history.ts [file]
 */
import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { NativeConnection, Worker } from "@temporalio/worker";
import { createActivities } from "../src/activities/index.js";
import { DEFAULT_WEBHOOK_SETTINGS, loadConfig } from "../src/config.js";
import { closeDatabase, connectDatabase } from "../src/db/db.js";
import { migrate } from "../src/db/migrate.js";
import { bootstrapTenant } from "../src/domain/tenancy/bootstrap.js";
import { insertPingMessage } from "../src/domain/webhooks/messages.js";
import { newWebhookSecret, sealWebhookSecret } from "../src/domain/webhooks/secret.js";
import { findTemporalCli } from "../src/infra/temporal-dev-server.js";
import { createStore } from "../src/store/store.js";
import { buildDeps } from "../src/deps.js";
import { connectTemporalClient, createFlows } from "../src/temporal/flows.js";
import { workflowIds } from "../src/temporal/ids.js";
import { workflowsPath } from "../src/temporal/worker.js";
import { webhookDeliveryWorkflow } from "../src/workflows/index.js";

const { DATABASE_URL, TEMPORAL_ADDRESS, REDIS_URL } = process.env;
if (!DATABASE_URL || !TEMPORAL_ADDRESS) throw new Error("set DATABASE_URL and TEMPORAL_ADDRESS");

let n = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on("end", () => res.writeHead(++n === 1 ? 500 : 200).end("ok"));
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const port = (receiver.address() as AddressInfo).port;

const db = connectDatabase(DATABASE_URL);
await migrate(db);
const store = await createStore(REDIS_URL, { keyPrefix: `record:${randomUUID()}:` });
const webhooks = { ...DEFAULT_WEBHOOK_SETTINGS, schedule: { live: [0, 1000], sandbox: [0, 1000] } };
const config = { ...loadConfig({ ...process.env, LOG_LEVEL: "warn", SIGIL_SEALING_KEYS: `record:${randomBytes(32).toString("base64")}` }), webhooks };
const taskQueue = `record-${randomUUID()}`;
const client = await connectTemporalClient(TEMPORAL_ADDRESS, "default");
const deps = buildDeps({ config, db, store, flows: createFlows(client, taskQueue) });
const sealer = deps.sealer;
const tenant = await bootstrapTenant(db);
const webhookId = randomUUID();
await db.none(
  `INSERT INTO webhooks (id, environment_id, url, event_names, secret_sealed, enabled_at) VALUES ($1, $2, $3, '{}', $4, now())`,
  [webhookId, tenant.environmentId, `http://127.0.0.1:${port}/hook`, sealWebhookSecret(sealer, webhookId, newWebhookSecret())],
);
const { messageId } = await insertPingMessage(db, { webhookId, environmentId: tenant.environmentId, environmentName: "sandbox" });

const connection = await NativeConnection.connect({ address: TEMPORAL_ADDRESS });
const worker = await Worker.create({ connection, taskQueue, workflowsPath, activities: createActivities(deps) });
const workflowId = workflowIds.webhookDelivery(messageId);
const result = await worker.runUntil(
  client.workflow.execute(webhookDeliveryWorkflow, { taskQueue, workflowId, args: [{ environmentId: tenant.environmentId, messageId, redelivery: 0 }] }),
);
if (result.status !== "delivered" || result.attempts !== 2) throw new Error(`unexpected result ${JSON.stringify(result)}`);
const cli = findTemporalCli();
if (!cli) throw new Error("no Temporal CLI found: npm run tools:temporal");
const json = execFileSync(cli, ["workflow", "show", "-w", workflowId, "-o", "json", "--address", TEMPORAL_ADDRESS], { encoding: "utf8" });
// The file name is an argument so that histories recorded before a versioning patch stay beside newer ones.
const out = path.join(import.meta.dirname, "../test/workflows/histories", process.argv[2] ?? "webhook-delivery.json");
writeFileSync(out, json.trim() + "\n");
console.log(`wrote ${out}`);
receiver.close();
await connection.close();
await client.connection.close();
await store.close();
await closeDatabase(db);
