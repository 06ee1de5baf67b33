import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_WEBHOOK_SETTINGS } from "../../src/config.js";
import { deliverEndpointBatch } from "../../src/domain/webhooks/endpoint-batch.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { Receiver } from "../support/receiver.js";

/**
 * One actor per endpoint runs one batch at a time, but a batch whose activity timed out (a missed heartbeat
 * on a starved worker) can still be sending when the actor's next batch starts. The second batch must not
 * take the messages the first has in flight: the endpoint would get them twice and its concurrency rule
 * would not hold. Here batches overlap on purpose, beside the actor's own, against a slow receiver.
 */

let app: TestApp;
let rx: Receiver;

beforeAll(async () => {
  app = await startTestApp({ webhooks: { ...DEFAULT_WEBHOOK_SETTINGS, schedule: { live: [0], sandbox: [0] } } });
  rx = await Receiver.start();
}, 60_000);
afterAll(async () => {
  await rx?.stop();
  await app?.stop();
});

describe("endpoint batches", () => {
  it("never send a message another batch has in flight, however many overlap", async () => {
    const t = await app.bootstrap({ ownerEmail: `batch-lease-${randomUUID()}@example.com` });
    rx.script("/slow", () => ({ status: 200, delayMs: 300 }));
    const hook = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/webhooks`, {
      token: t.token,
      body: { url: rx.url("/slow"), events: ["user.created"] },
    });
    expect(hook.status, hook.text).toBe(201);
    const webhookId = hook.body.webhookId as string;
    for (let i = 0; i < 20; i++) {
      const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/users`, { token: t.token, body: { email: `lease-${i}-${randomUUID()}@example.com` } });
      expect(res.status, res.text).toBe(201);
    }
    const deps = { ...app.deps, webhooks: app.config.webhooks };
    const pending = async () =>
      (await app.db.one(`SELECT count(*)::int AS n FROM webhook_messages WHERE webhook_id = $1 AND status = 'pending'`, [webhookId])).n;
    const deadline = Date.now() + 45_000;
    while ((await pending()) > 0 && Date.now() < deadline) {
      // Three batches at once beside the actor's own.
      await Promise.all([0, 1, 2].map(() => deliverEndpointBatch(deps, { environmentId: t.environmentId, webhookId })));
    }
    expect(await pending()).toBe(0);

    const perMessage = new Map<string, number>();
    for (const r of rx.received("/slow")) perMessage.set(r.headers["webhook-id"]!, (perMessage.get(r.headers["webhook-id"]!) ?? 0) + 1);
    const messages = await app.db.any<{ id: string }>(`SELECT id FROM webhook_messages WHERE webhook_id = $1`, [webhookId]);
    expect(messages.length).toBe(21); // the ping and 20 user.created
    expect([...perMessage.entries()].filter(([, n]) => n > 1)).toEqual([]);
    expect(new Set(perMessage.keys())).toEqual(new Set(messages.map((m) => m.id)));
    expect(rx.maxConcurrent("/slow")).toBeLessThanOrEqual(app.config.webhooks.concurrencyPerEndpoint);
  }, 90_000);
});
