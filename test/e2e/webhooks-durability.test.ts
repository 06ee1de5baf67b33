import { randomUUID } from "node:crypto";
import { NativeConnection } from "@temporalio/worker";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createActivities } from "../../src/activities/index.js";
import { DEFAULT_WEBHOOK_SETTINGS, type Config } from "../../src/config.js";
import type { Deps } from "../../src/domain/deps.js";
import { bootstrapTenant } from "../../src/domain/tenancy/bootstrap.js";
import { createDispatcher, type Dispatcher } from "../../src/outbox/dispatcher.js";
import { newWebhookSecret, sealWebhookSecret } from "../../src/domain/webhooks/secret.js";
import { createFlows } from "../../src/temporal/flows.js";
import { workflowIds } from "../../src/temporal/ids.js";
import { createWorkerPair, type RunnableWorker } from "../../src/temporal/worker.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { waitFor } from "../support/poll.js";
import { testWorkflowBundle } from "../support/workflow-bundle.js";
import { Receiver } from "../support/receiver.js";

// The "nothing lost" bar: endpoints subscribed, N events, the receiver down, the worker (and its
// dispatcher) killed mid-retry and replaced, the receiver back: every endpoint got every event exactly as
// recorded, once per message id, and the stored attempts tell the same story.

const webhooks: Config["webhooks"] = {
  ...DEFAULT_WEBHOOK_SETTINGS,
  schedule: { live: [0, 500, 1000, 2000, 3000, 3000, 3000, 3000, 3000, 3000, 3000], sandbox: [0, 500, 1000, 2000, 3000, 3000, 3000, 3000, 3000, 3000, 3000] },
  dispatcherPollMs: 500,
  orphanAfterMs: 1500,
};

let app: TestApp;
let rx: Receiver;

beforeAll(async () => {
  // No dispatcher of the app's own: the test runs (and kills) its own worker and dispatcher.
  app = await startTestApp({ webhooks }, { dispatcher: false });
  rx = await Receiver.start();
}, 60_000);
afterAll(async () => {
  await rx?.stop();
  await app?.stop();
});

it("delivers every event to every subscribed endpoint exactly as recorded, across a receiver outage and a worker restart", async () => {
  // The app's database, served by this test's own worker and dispatcher on a task queue of their own.
  const t = await bootstrapTenant(app.db, { ownerEmail: `durable-${randomUUID()}@example.com` });
  const taskQueue = `webhooks-durability-${randomUUID()}`;
  const deps: Deps = { ...app.deps, flows: createFlows(app.temporal, taskQueue) };
  const bundle = await testWorkflowBundle();
  const connection = await NativeConnection.connect({ address: app.config.temporalAddress! });
  const newWorker = () =>
    createWorkerPair({
      connection,
      namespace: app.config.temporalNamespace,
      taskQueue,
      activities: createActivities({ ...app.deps, config: { ...app.config, webhooks } }),
      workflowBundle: bundle,
      deliverySlots: webhooks.deliverySlots,
    });
  const newDispatcher = () => createDispatcher(deps);

  const endpoints = [
    { path: "/d1", events: ["user.created", "user.updated"] },
    { path: "/d2", events: ["user.created", "user.updated"] },
    { path: "/d3", events: ["user.updated"] },
  ];
  const hooks = [];
  for (const e of endpoints) {
    const id = randomUUID();
    const secret = newWebhookSecret();
    await app.db.none(
      `INSERT INTO webhooks (id, environment_id, url, event_names, secret_sealed, enabled_at) VALUES ($1, $2, $3, $4, $5, now())`,
      [id, t.environmentId, rx.url(e.path), e.events, sealWebhookSecret(app.deps.sealer, id, secret)],
    );
    hooks.push({ ...e, id, secret });
  }
  const userIds: string[] = [];
  const produce = async (n: number) => {
    for (let i = 0; i < n; i++) {
      if (i % 2 === 0 || !userIds.length) {
        const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/users`, {
          token: t.token,
          body: { email: `d-${randomUUID()}@example.com`, alias: `user ${userIds.length}` },
        });
        expect(res.status, res.text).toBe(201);
        userIds.push(res.body.user.id);
      } else {
        const id = userIds[i % userIds.length]!;
        const res = await call(app.baseUrl, "PUT", `/environments/${t.environmentId}/users/${id}`, {
          token: t.token,
          body: { firstName: `n${i}` },
        });
        expect(res.status, res.text).toBe(200);
      }
    }
  };
  const deliveredCount = async () =>
    (await app.db.one(`SELECT count(*)::int AS n FROM webhook_messages WHERE environment_id = $1 AND status = 'delivered'`, [t.environmentId])).n;

  let worker = await newWorker();
  let running = worker.run();
  let dispatcher: Dispatcher = newDispatcher();
  await dispatcher.start();
  let second: RunnableWorker | undefined;
  try {
    // 1. Receiver up: the first 10 events flow.
    await produce(10);
    await waitFor("some deliveries", async () => (await deliveredCount()) >= 5, { timeoutMs: 30_000 });

    // 2. Receiver down; 14 more events; attempts fail and are rescheduled.
    await rx.stop();
    await produce(14);
    await waitFor("failed attempts while down", async () => {
      const r = await app.db.one(
        `SELECT count(*)::int AS n FROM webhook_messages WHERE environment_id = $1 AND status = 'pending' AND attempts >= 2`,
        [t.environmentId],
      );
      return r.n >= 10;
    }, { timeoutMs: 30_000 });

    // 3. Kill the worker and its dispatcher mid-retry; events keep coming while no worker runs.
    await dispatcher.stop();
    worker.shutdown();
    await running;
    await produce(6);
    const pendingWhileDead = await app.db.one(
      `SELECT count(*)::int AS n FROM events WHERE environment_id = $1 AND dispatched_at IS NULL`,
      [t.environmentId],
    );
    expect(pendingWhileDead.n).toBeGreaterThan(0);

    // 4. A new worker and dispatcher; then the receiver comes back on the same port.
    second = await newWorker();
    running = second.run();
    dispatcher = newDispatcher();
    await dispatcher.start();
    // The scenario's order, not a wait for a result: the new worker runs a moment while the receiver is
    // still down, then it comes back.
    await new Promise((r) => setTimeout(r, 1000));
    await rx.listen();

    const events = await app.db.any(`SELECT * FROM events WHERE environment_id = $1 AND source = 'service' ORDER BY created_at, id`, [
      t.environmentId,
    ]);
    expect(events).toHaveLength(30);
    const expected = hooks.reduce((n, h) => n + events.filter((e) => h.events.includes(e.event_name)).length, 0);
    await waitFor(
      "every message delivered",
      async () => (await deliveredCount()) === expected,
      { timeoutMs: 45_000 },
    );

    // Every subscribed endpoint got every event, exactly as recorded, once per message id.
    const eventsById = new Map(events.map((e) => [e.id, e]));
    for (const h of hooks) {
      const messages = await app.db.any(`SELECT * FROM webhook_messages WHERE webhook_id = $1`, [h.id]);
      const subscribed = events.filter((e) => h.events.includes(e.event_name));
      expect(new Set(messages.map((m) => m.event_id))).toEqual(new Set(subscribed.map((e) => e.id)));
      expect(messages).toHaveLength(subscribed.length);

      const ok = rx.received(h.path).filter((r) => r.status === 200);
      const byId = new Map<string, (typeof ok)[number]>();
      for (const r of ok) {
        // A repeat of a message (at-least-once) must carry the same bytes.
        const prev = byId.get(r.headers["webhook-id"]!);
        if (prev) expect(r.body).toBe(prev.body);
        byId.set(r.headers["webhook-id"]!, r);
      }
      expect(new Set(byId.keys())).toEqual(new Set(messages.map((m) => m.id)));
      for (const m of messages) {
        const r = byId.get(m.id)!;
        const body = new Webhook(h.secret).verify(r.body, r.headers) as any;
        expect(body).toEqual(m.payload);
        const e = eventsById.get(m.event_id)!;
        expect(body).toMatchObject({ eventId: e.id, eventName: e.event_name, webhookId: h.id, environmentId: t.environmentId, redelivery: false });
        expect(body.data).toEqual(e.data);
        expect(body.timestamp).toBe(e.created_at.toISOString());

        // The stored attempts tell the same story: failures while down, then exactly one success, last.
        const ds = await app.db.any(`SELECT * FROM webhook_deliveries WHERE message_id = $1 ORDER BY started_at, created_at`, [m.id]);
        const successes = ds.filter((d) => d.response_status === 200);
        expect(successes).toHaveLength(1);
        expect(ds[ds.length - 1]).toBe(successes[0]);
        expect(ds.slice(0, -1).every((d) => d.response_status === null && d.error)).toBe(true);
        expect(m.attempts).toBe(ds.filter((d) => !String(d.error ?? "").startsWith("no response recorded")).length);
        expect(successes[0].request_body).toBe(r.body);
        // What the receiver saw (with a status) is exactly what the store says got an answer.
        const seen = rx.received(h.path).filter((x) => x.headers["webhook-id"] === m.id);
        expect(seen.length).toBe(ds.filter((d) => d.response_status !== null).length);
      }
    }
    // The outage shows: messages of the second batch failed at least once (connection refused) before success.
    const failedWhileDown = await app.db.one(
      `SELECT count(DISTINCT message_id)::int AS n FROM webhook_deliveries WHERE environment_id = $1 AND response_status IS NULL`,
      [t.environmentId],
    );
    expect(failedWhileDown.n).toBeGreaterThanOrEqual(10);
    // The endpoints' actors (issue 11) did the work and are still there (idle until their quiet minute ends).
    const anyMessage = await app.db.one(`SELECT webhook_id FROM webhook_messages WHERE environment_id = $1 LIMIT 1`, [t.environmentId]);
    const desc = await app.temporal.workflow.getHandle(workflowIds.webhookEndpoint(anyMessage.webhook_id)).describe();
    expect(["RUNNING", "COMPLETED"]).toContain(desc.status.name);
  } finally {
    await dispatcher.stop();
    const w = second ?? worker;
    if (w.getState() === "RUNNING") w.shutdown();
    await running.catch(() => {});
    await connection.close();
  }
}, 120_000);
