/**
 * Webhook fan-out benchmark on loopback: 1,000 events (BENCH_EVENTS) in one environment with 3 subscribed
 * endpoints on a local receiver, i.e. 3,000 messages, each delivered by its own Temporal workflow through
 * the outbox dispatcher, in this process (worker + dispatcher; real Postgres, Redis and Temporal from
 * DATABASE_URL / REDIS_URL / TEMPORAL_ADDRESS). Events are written as a burst (insertEvent, 20 per
 * transaction, as fast as they go). Reports deliveries/s (first event written -> last delivery) and the
 * delay from change (event created_at) to its arrival at the receiver, p50/p99/max. Bounded by
 * BENCH_TIMEOUT_SECONDS (default 180). Per-endpoint concurrency: SIGIL_WEBHOOK_CONCURRENCY_PER_ENDPOINT
 * (default 5).
 *
 *   DATABASE_URL=... REDIS_URL=... TEMPORAL_ADDRESS=... npx tsx bench/webhooks-fanout.ts
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { NativeConnection, Runtime, bundleWorkflowCode } from "@temporalio/worker";
import { createActivities } from "../src/activities/index.js";
import { buildDeps } from "../src/deps.js";
import { loadConfig } from "../src/config.js";
import { createSealer } from "../src/crypto/seal.js";
import { closeDatabase, connectDatabase } from "../src/db/db.js";
import { migrate } from "../src/db/migrate.js";
import { insertEvent } from "../src/db/repositories/events.js";
import { bootstrapTenant } from "../src/domain/tenancy/bootstrap.js";
import { createDispatcher } from "../src/outbox/dispatcher.js";
import { newWebhookSecret, sealWebhookSecret } from "../src/domain/webhooks/secret.js";
import { createLogger } from "../src/log.js";
import { createStore } from "../src/store/store.js";
import { connectTemporalClient, createFlows } from "../src/temporal/flows.js";
import { installTemporalRuntimeLogger } from "../src/temporal/runtime-logger.js";
import { createWorkerPair, workflowsPath } from "../src/temporal/worker.js";

const { DATABASE_URL, REDIS_URL, TEMPORAL_ADDRESS } = process.env;
if (!DATABASE_URL || !REDIS_URL || !TEMPORAL_ADDRESS) throw new Error("set DATABASE_URL, REDIS_URL and TEMPORAL_ADDRESS (real servers)");
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const ENDPOINTS = 3;
const timeoutMs = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 180) * 1000;

const config = loadConfig({ ...process.env, LOG_LEVEL: "warn", SIGIL_SEALING_KEYS: `bench:${randomBytes(32).toString("base64")}` });
const log = createLogger("warn");
installTemporalRuntimeLogger(log, false);

// The receiver: first arrival of each message id, and its delay from the event's created_at.
const arrivals = new Map<string, { at: number; delayMs: number }>();
let requests = 0;
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    requests++;
    const id = String(req.headers["webhook-id"]);
    if (!arrivals.has(id)) {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const now = Date.now();
      arrivals.set(id, { at: now, delayMs: now - Date.parse(body.timestamp) });
    }
    res.writeHead(200).end();
  });
});
receiver.keepAliveTimeout = 5000;
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const port = (receiver.address() as AddressInfo).port;

const db = connectDatabase(DATABASE_URL, { max: 30 });
await migrate(db);
const store = await createStore(REDIS_URL, { keyPrefix: `bench:${randomUUID()}:` });
const sealer = createSealer(config.sealingKeys);
const tenant = await bootstrapTenant(db);
const env = tenant.environmentId;
for (let i = 0; i < ENDPOINTS; i++) {
  const id = randomUUID();
  await db.none(
    `INSERT INTO webhooks (id, environment_id, url, event_names, secret_sealed, enabled_at) VALUES ($1, $2, $3, '{user.updated}', $4, now())`,
    [id, env, `http://127.0.0.1:${port}/endpoint-${i}`, sealWebhookSecret(sealer, id, newWebhookSecret())],
  );
}

const taskQueue = `bench-webhooks-${randomUUID()}`;
const client = await connectTemporalClient(TEMPORAL_ADDRESS, config.temporalNamespace);
const connection = await NativeConnection.connect({ address: TEMPORAL_ADDRESS });
// Both workers of a worker process: deliveries run on the webhook queue (src/temporal/ids.ts).
const worker = await createWorkerPair({
  connection,
  namespace: config.temporalNamespace,
  taskQueue,
  workflowBundle: await bundleWorkflowCode({ workflowsPath, logger: Runtime.instance().logger }),
  activities: createActivities(buildDeps({ config, db, store, flows: createFlows(client, taskQueue), log })),
  deliverySlots: config.webhooks.deliverySlots,
});
const running = worker.run();
const dispatcher = createDispatcher(
  { db, log, config, flows: createFlows(client, taskQueue) },
  // Only the bench's tenant: the database may hold other tenants' undispatched events.
  { environmentIds: () => [env] },
);
await dispatcher.start();

console.log(`${EVENTS} events x ${ENDPOINTS} endpoints, per-endpoint concurrency ${config.webhooks.concurrencyPerEndpoint}, ${os.cpus().length} CPUs`);
const t0 = Date.now();
for (let i = 0; i < EVENTS; i += 20) {
  await db.tx(async (t) => {
    for (let j = i; j < Math.min(i + 20, EVENTS); j++) {
      await insertEvent(t, {
        environmentId: env,
        organizationId: tenant.organizationId,
        eventName: "user.updated",
        source: "service",
        userId: null,
        resourceType: "user",
        resourceId: randomUUID(),
        data: { id: randomUUID(), alias: `bench ${j}`, firstName: "Bench" },
        auditId: null,
      });
    }
  });
}
const written = Date.now() - t0;
const expected = EVENTS * ENDPOINTS;
while (arrivals.size < expected && Date.now() - t0 < timeoutMs) await new Promise((r) => setTimeout(r, 100));
const elapsed = Math.max(...[...arrivals.values()].map((a) => a.at)) - t0;

const delays = [...arrivals.values()].map((a) => a.delayMs).sort((a, b) => a - b);
const pct = (p: number) => delays[Math.min(delays.length - 1, Math.floor((p / 100) * delays.length))] ?? NaN;
console.log(`events written in ${written} ms`);
console.log(`delivered ${arrivals.size}/${expected} messages (${requests} requests) in ${(elapsed / 1000).toFixed(1)} s: ${(arrivals.size / (elapsed / 1000)).toFixed(0)} deliveries/s`);
console.log(`change -> delivery: p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${delays[delays.length - 1]} ms`);

await dispatcher.stop();
worker.shutdown();
await running;
await connection.close();
await client.connection.close();
await store.close();
await closeDatabase(db);
receiver.close();
if (arrivals.size < expected) process.exit(1);
