/**
 * Webhook fan-out benchmark on loopback: 1,000 events (BENCH_EVENTS) in one environment with 3 subscribed
 * endpoints on a local receiver, i.e. 3,000 messages, delivered by each endpoint's actor workflow (woken by
 * the outbox dispatcher), in this process (worker + dispatcher; real Postgres, Redis and Temporal from
 * DATABASE_URL / REDIS_URL / TEMPORAL_ADDRESS). Events are written as a burst (insertEvent, 20 per
 * transaction, as fast as they go). Reports deliveries/s (first event written -> last delivery) and the
 * delay from change (event created_at) to its arrival at the receiver, p50/p99/max. Bounded by
 * BENCH_TIMEOUT_SECONDS (default 180). Per-endpoint concurrency: SIGIL_WEBHOOK_CONCURRENCY_PER_ENDPOINT
 * (default 5). Beside it, the bare baseline of the same run: the same signed envelopes POSTed straight to the
 * receiver, as many at once as the per-environment request limit, over kept-alive connections (the ratio).
 * BENCH_BACKLOG=1 writes the events before the relay starts: the rate of draining a backlog, not bounded by
 * how fast this process writes the burst (the ratio to the baseline is meaningful in this mode).
 *
 *   DATABASE_URL=... REDIS_URL=... TEMPORAL_ADDRESS=... npx tsx bench/webhooks-fanout.ts
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { NativeConnection, Runtime, bundleWorkflowCode } from "@temporalio/worker";
import { Agent, request } from "undici";
import { createActivities } from "../src/activities/index.js";
import { buildDeps } from "../src/deps.js";
import { loadConfig } from "../src/config.js";
import { createSealer } from "../src/crypto/seal.js";
import { closeDatabase, connectDatabase } from "../src/db/db.js";
import { insertEvent } from "../src/db/repositories/events.js";
import { bootstrapTenant } from "../src/domain/tenancy/bootstrap.js";
import { createDispatcher } from "../src/outbox/dispatcher.js";
import { envelopeBody } from "../src/domain/webhooks/messages.js";
import { newWebhookSecret, openWebhookSecret, sealWebhookSecret } from "../src/domain/webhooks/secret.js";
import { signedHeaders } from "../src/crypto/webhook-signing.js";
import { createLogger } from "../src/log.js";
import { createStore } from "../src/store/store.js";
import { connectTemporalClient, createFlows } from "../src/temporal/flows.js";
import { installTemporalRuntimeLogger } from "../src/temporal/runtime-logger.js";
import { createWorkerPair, workflowsPath } from "../src/temporal/worker.js";
import { createBenchDatabase } from "./support/database.js";

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

// A database of its own: this process is a deployment, and its dispatcher relays every event of its database.
const database = await createBenchDatabase(DATABASE_URL);
const db = connectDatabase(database.url, { max: 30 });
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
const dispatcher = createDispatcher({ db, log, config, flows: createFlows(client, taskQueue) });
// BENCH_BACKLOG=1: the events are written first and relayed afterwards, so the rate is the delivery path's
// own (a backlog drained), not bounded by how fast this process writes the burst.
const backlog = process.env.BENCH_BACKLOG === "1";
if (!backlog) await dispatcher.start();

console.log(`${EVENTS} events x ${ENDPOINTS} endpoints, per-endpoint concurrency ${config.webhooks.concurrencyPerEndpoint}, ${os.cpus().length} CPUs`);
let t0 = Date.now();
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
if (backlog) {
  t0 = Date.now();
  await dispatcher.start();
}
const expected = EVENTS * ENDPOINTS;
while (arrivals.size < expected && Date.now() - t0 < timeoutMs) await new Promise((r) => setTimeout(r, 100));
const elapsed = Math.max(...[...arrivals.values()].map((a) => a.at)) - t0;

const delays = [...arrivals.values()].map((a) => a.delayMs).sort((a, b) => a - b);
const pct = (p: number) => delays[Math.min(delays.length - 1, Math.floor((p / 100) * delays.length))] ?? NaN;
console.log(`events written in ${written} ms${backlog ? " (before the relay started: the rate counts from its start; the delays include the wait for it)" : ""}`);
console.log(`delivered ${arrivals.size}/${expected} messages (${requests} requests) in ${(elapsed / 1000).toFixed(1)} s: ${(arrivals.size / (elapsed / 1000)).toFixed(0)} deliveries/s`);
console.log(`change -> delivery: p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${delays[delays.length - 1]} ms`);

// Where the delay goes: event -> message (the outbox relay) and message -> delivered (the actors).
const split = await db.one(
  `SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY r) AS relay50, percentile_disc(0.99) WITHIN GROUP (ORDER BY r) AS relay99,
          percentile_disc(0.5) WITHIN GROUP (ORDER BY d) AS send50, percentile_disc(0.99) WITHIN GROUP (ORDER BY d) AS send99
   FROM (SELECT extract(epoch FROM m.created_at - e.created_at) * 1000 AS r, extract(epoch FROM m.delivered_at - m.created_at) * 1000 AS d
         FROM webhook_messages m JOIN events e ON e.id = m.event_id WHERE m.environment_id = $1) x`,
  [env],
);
const ms = (v: unknown) => Math.round(Number(v));
console.log(`  event -> message (relay): p50 ${ms(split.relay50)} ms, p99 ${ms(split.relay99)} ms; message -> delivered: p50 ${ms(split.send50)} ms, p99 ${ms(split.send99)} ms`);
const rate = arrivals.size / (elapsed / 1000);
// The bare baseline, same run: the same requests (each message's stored envelope, signed) POSTed straight to
// the receiver over kept-alive connections, as many at once as the environment's request limit allows —
// the HTTP work of a delivery without the outbox, Temporal, the slots and the attempt records.
const stored = await db.any(
  `SELECT m.id, m.payload, w.secret_sealed, w.id AS webhook_id, w.url FROM webhook_messages m JOIN webhooks w ON w.id = m.webhook_id WHERE m.environment_id = $1`,
  [env],
);
const bare = new Agent({ connections: config.webhooks.concurrencyPerEnvironment });
let nextBare = 0;
const b0 = Date.now();
await Promise.all(
  Array.from({ length: config.webhooks.concurrencyPerEnvironment }, async () => {
    while (nextBare < stored.length) {
      const m = stored[nextBare++]!;
      const body = envelopeBody(m.payload, false);
      const secret = openWebhookSecret(sealer, m.webhook_id, m.secret_sealed);
      const headers = { "content-type": "application/json", ...signedHeaders(secret, `bare-${m.id}`, new Date(), body) };
      const res = await request(m.url, { method: "POST", headers, body, dispatcher: bare });
      await res.body.text();
    }
  }),
);
const bareMs = Date.now() - b0;
await bare.close();
const bareRate = stored.length / (bareMs / 1000);
console.log(
  `bare baseline (same ${stored.length} signed POSTs, ${config.webhooks.concurrencyPerEnvironment} at once, kept alive): ${bareRate.toFixed(0)}/s; ratio ${(rate / bareRate).toFixed(2)}`,
);

await dispatcher.stop();
worker.shutdown();
await running;
await connection.close();
await client.connection.close();
await store.close();
await closeDatabase(db);
await database.drop();
receiver.close();
if (arrivals.size < expected) process.exit(1);
