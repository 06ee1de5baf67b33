import { generateKeyPairSync, randomUUID } from "node:crypto";
import { compactDecrypt, decodeProtectedHeader } from "jose";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_WEBHOOK_SETTINGS } from "../../src/config.js";
import { insertEvent } from "../../src/db/repositories/events.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { insertPingMessage } from "../../src/domain/webhooks/messages.js";
import { newWebhookSecret, sealWebhookSecret } from "../../src/domain/webhooks/secret.js";
import { workflowIds } from "../../src/temporal/ids.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { waitFor } from "../support/poll.js";
import { Receiver } from "../support/receiver.js";

let app: TestApp;
let rx: Receiver;

const SCHEDULE = [0, 300, 600, 900];

beforeAll(async () => {
  app = await startTestApp({
    webhooks: {
      ...DEFAULT_WEBHOOK_SETTINGS,
      schedule: { live: SCHEDULE, sandbox: SCHEDULE },
      concurrencyPerEndpoint: 2,
      retryAfterMaxMs: 5000,
      dispatcherPollMs: 500,
      orphanAfterMs: 1500,
    },
  });
  rx = await Receiver.start();
}, 60_000);
afterAll(async () => {
  await rx?.stop();
  await app?.stop();
});

async function tenant(): Promise<BootstrapResult> {
  return app.bootstrap({ ownerEmail: `webhooks-${randomUUID()}@example.com` });
}

/** A subscribed endpoint, written straight to the table (the webhooks API is another module's). */
async function addWebhook(environmentId: string, path: string, eventNames: string[]) {
  const id = randomUUID();
  const secret = newWebhookSecret();
  await app.db.none(
    `INSERT INTO webhooks (id, environment_id, url, event_names, secret_sealed, enabled_at) VALUES ($1, $2, $3, $4, $5, now())`,
    [id, environmentId, rx.url(path), eventNames, sealWebhookSecret(app.deps.sealer, id, secret)],
  );
  return { id, secret, path };
}

async function emit(t: BootstrapResult, eventName: string, data: Record<string, unknown> = {}, source: "service" | "client" = "service") {
  return app.db.tx((tx) =>
    insertEvent(tx, {
      environmentId: t.environmentId,
      organizationId: t.organizationId,
      eventName,
      source,
      userId: null,
      resourceType: null,
      resourceId: null,
      data,
      auditId: null,
    }),
  );
}

const messagesOf = (webhookId: string) =>
  app.db.any(`SELECT * FROM webhook_messages WHERE webhook_id = $1 ORDER BY created_at, id`, [webhookId]);
const deliveriesOf = (messageId: string) =>
  app.db.any(`SELECT * FROM webhook_deliveries WHERE message_id = $1 ORDER BY started_at, created_at`, [messageId]);

describe("webhook delivery", () => {
  it("delivers a user.created event signed per Standard Webhooks, exactly as stored", async () => {
    const t = await tenant();
    const hook = await addWebhook(t.environmentId, "/created", ["user.created"]);
    const other = await addWebhook(t.environmentId, "/other", ["wallet.created"]);
    const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/users`, {
      token: t.token,
      body: { email: `u-${randomUUID()}@example.com` },
    });
    expect(res.status, res.text).toBe(201);
    const userId = res.body.user.id;

    const [got] = await waitFor("the delivery", async () => rx.received("/created").length && rx.received("/created"));
    // The receiver's check: signature, id and timestamp headers.
    const verified = new Webhook(hook.secret).verify(got!.body, got!.headers) as Record<string, any>;
    expect(() => new Webhook(newWebhookSecret()).verify(got!.body, got!.headers)).toThrow();
    expect(got!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(got!.headers["content-type"]).toBe("application/json");

    const [msg] = await messagesOf(hook.id);
    expect(msg).toBeDefined();
    expect(got!.headers["webhook-id"]).toBe(msg.id);
    expect(verified).toEqual(msg.payload);
    const event = await app.db.one(`SELECT * FROM events WHERE id = $1`, [msg.event_id]);
    expect(verified).toMatchObject({
      eventId: event.id,
      messageId: msg.id,
      webhookId: hook.id,
      userId,
      eventName: "user.created",
      environmentId: t.environmentId,
      environmentName: "sandbox",
      timestamp: event.created_at.toISOString(),
      redelivery: false,
      data: event.data,
    });
    expect(verified.kid).toBeUndefined();
    expect(event.dispatched_at).not.toBeNull();

    // The stored story: one attempt, 200, the request as sent (signature header but never the secret).
    const done = await waitFor("delivered status", async () => {
      const m = await app.db.one(`SELECT * FROM webhook_messages WHERE id = $1`, [msg.id]);
      return m.status === "delivered" && m;
    });
    expect(done.attempts).toBe(1);
    expect(done.delivered_at).not.toBeNull();
    const [d] = await deliveriesOf(msg.id);
    expect(d).toMatchObject({ attempt: 1, redelivery: false, response_status: 200, response_body_excerpt: "ok", error: null });
    expect(d.request_url).toBe(rx.url("/created"));
    expect(d.request_body).toBe(got!.body);
    expect(d.request_headers["webhook-signature"]).toBe(got!.headers["webhook-signature"]);
    expect(JSON.stringify(d.request_headers)).not.toContain(hook.secret.slice(6));
    expect(d.duration_ms).toBeGreaterThanOrEqual(0);
    // Not subscribed: nothing for the other endpoint.
    expect(await messagesOf(other.id)).toHaveLength(0);
    expect(rx.received("/other")).toHaveLength(0);

    // Visible in Temporal under a readable id: the endpoint's actor (issue 11), with the memo telling what it is.
    const desc = await app.temporal.workflow.getHandle(workflowIds.webhookEndpoint(hook.id)).describe();
    expect(["RUNNING", "COMPLETED"]).toContain(desc.status.name);
    expect(desc.memo).toMatchObject({ environmentId: t.environmentId, webhookId: hook.id });
  });

  it("retries on 500 until a 2xx, on the schedule, with the same id and bytes", async () => {
    const t = await tenant();
    const hook = await addWebhook(t.environmentId, "/flaky", ["user.updated"]);
    rx.script("/flaky", ({ n }) => (n <= 2 ? { status: 500, body: "x".repeat(3000) } : { status: 204 }));
    await emit(t, "user.updated", { id: randomUUID(), alias: "flaky" });
    const [msg] = await waitFor("the message", async () => (await messagesOf(hook.id)).length && messagesOf(hook.id));
    await waitFor("delivered", async () => (await app.db.one(`SELECT status FROM webhook_messages WHERE id = $1`, [msg.id])).status === "delivered");
    const got = rx.received("/flaky");
    expect(got.map((g) => g.status)).toEqual([500, 500, 204]);
    expect(new Set(got.map((g) => g.headers["webhook-id"]))).toEqual(new Set([msg.id]));
    expect(new Set(got.map((g) => g.body)).size).toBe(1);
    for (const g of got) new Webhook(hook.secret).verify(g.body, g.headers);
    // Schedule: 0, 300 ms, 600 ms between attempts.
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(250);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(550);
    const ds = await deliveriesOf(msg.id);
    expect(ds.map((d) => [d.attempt, d.response_status])).toEqual([
      [1, 500],
      [2, 500],
      [3, 204],
    ]);
    expect(ds[0].error).toBe("http_500");
    expect(Buffer.byteLength(ds[0].response_body_excerpt)).toBe(1024);
    const m = await app.db.one(`SELECT * FROM webhook_messages WHERE id = $1`, [msg.id]);
    expect(m.attempts).toBe(3);
    expect(m.next_attempt_at).toBeNull();
    const w = await app.db.one(`SELECT failing_since FROM webhooks WHERE id = $1`, [hook.id]);
    expect(w.failing_since).toBeNull();
  });

  it("fails the message once the schedule is exhausted", async () => {
    const t = await tenant();
    const hook = await addWebhook(t.environmentId, "/always-500", ["user.deleted"]);
    rx.script("/always-500", () => ({ status: 500 }));
    await emit(t, "user.deleted", { id: randomUUID() });
    const [msg] = await waitFor("the message", async () => (await messagesOf(hook.id)).length && messagesOf(hook.id));
    const m = await waitFor("failed", async () => {
      const r = await app.db.one(`SELECT * FROM webhook_messages WHERE id = $1`, [msg.id]);
      return r.status === "failed" && r;
    });
    expect(m.attempts).toBe(SCHEDULE.length);
    expect(rx.received("/always-500")).toHaveLength(SCHEDULE.length);
    expect((await deliveriesOf(msg.id)).map((d) => d.response_status)).toEqual(SCHEDULE.map(() => 500));
    const w = await app.db.one(`SELECT * FROM webhooks WHERE id = $1`, [hook.id]);
    expect(w.failing_since).not.toBeNull();
    expect(w.enabled_at).not.toBeNull(); // a day of failures is needed in a sandbox, not four requests
  });

  it("410 Gone disables the endpoint, says so with webhook.disabled, and it gets nothing more", async () => {
    const t = await tenant();
    const hook = await addWebhook(t.environmentId, "/gone", ["user.created", "user.updated"]);
    const watcher = await addWebhook(t.environmentId, "/watcher", ["webhook.disabled"]);
    rx.script("/gone", () => ({ status: 410 }));
    await emit(t, "user.created", { id: randomUUID() });
    const w = await waitFor("disabled", async () => {
      const r = await app.db.one(`SELECT * FROM webhooks WHERE id = $1`, [hook.id]);
      return r.enabled_at === null && r;
    });
    expect(w.disabled_reason).toBe("gone");
    const [msg] = await messagesOf(hook.id);
    expect(msg.status).toBe("failed");
    expect(rx.received("/gone")).toHaveLength(1);
    const audit = await app.db.one(`SELECT * FROM audit_log WHERE resource_id = $1 AND action = 'webhook.disabled'`, [hook.id]);
    expect(audit).toMatchObject({ actor_token_id: null, actor_member_id: null, actor_account_id: null, environment_id: t.environmentId });
    expect(audit.changes.after).toMatchObject({ enabled: false, disabledReason: "gone" });
    const ev = await app.db.one(`SELECT * FROM events WHERE resource_id = $1 AND event_name = 'webhook.disabled'`, [hook.id]);
    expect(ev.audit_id).toBe(audit.id);
    // The environment's other endpoint subscribed to webhook.disabled hears about it.
    const [heard] = await waitFor("webhook.disabled delivery", async () => rx.received("/watcher").length && rx.received("/watcher"));
    const body = new Webhook(watcher.secret).verify(heard!.body, heard!.headers) as any;
    expect(body).toMatchObject({ eventName: "webhook.disabled", eventId: ev.id, data: { id: hook.id, disabledReason: "gone" } });
    // Later events are not sent to a disabled endpoint.
    await emit(t, "user.updated", { id: randomUUID() });
    await app.dispatcher.drain();
    expect(await messagesOf(hook.id)).toHaveLength(1);
  });

  it("honours Retry-After on 429 and 503 instead of the schedule", async () => {
    const t = await tenant();
    const hook = await addWebhook(t.environmentId, "/later", ["user.updated"]);
    rx.script("/later", ({ n }) =>
      n === 1 ? { status: 429, headers: { "retry-after": "2" } } : n === 2 ? { status: 503, headers: { "retry-after": "1" } } : { status: 200 },
    );
    await emit(t, "user.updated", { id: randomUUID() });
    const [msg] = await waitFor("the message", async () => (await messagesOf(hook.id)).length && messagesOf(hook.id));
    await waitFor("delivered", async () => (await app.db.one(`SELECT status FROM webhook_messages WHERE id = $1`, [msg.id])).status === "delivered", { timeoutMs: 30_000 });
    const got = rx.received("/later");
    expect(got.map((g) => g.status)).toEqual([429, 503, 200]);
    // The schedule would have retried after 300 ms and 600 ms.
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(1900);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(900);
    expect((await deliveriesOf(msg.id)).map((d) => d.response_status)).toEqual([429, 503, 200]);
  });

  it("caps concurrent requests per endpoint; a slow endpoint does not delay another", async () => {
    const t = await tenant();
    const slow = await addWebhook(t.environmentId, "/slow", ["wallet.created"]);
    const fast = await addWebhook(t.environmentId, "/fast", ["wallet.created"]);
    rx.script("/slow", () => ({ status: 200, delayMs: 1000 }));
    const N = 8;
    const started = Date.now();
    for (let i = 0; i < N; i++) await emit(t, "wallet.created", { id: randomUUID(), n: i });
    await waitFor("fast deliveries", async () => rx.received("/fast").length === N, { timeoutMs: 15_000 });
    const fastDone = Date.now() - started;
    // 8 requests of 1 s through 2 slots take >= 4 s; the fast endpoint was served long before.
    expect(fastDone).toBeLessThan(3500);
    await waitFor("slow deliveries", async () => rx.received("/slow").length === N, { timeoutMs: 30_000 });
    expect(rx.maxConcurrent("/slow")).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4000);
    // Waiting for a slot is not an attempt: one attempt per message.
    const msgs = await messagesOf(slow.id);
    expect(msgs).toHaveLength(N);
    await waitFor("all delivered", async () => (await messagesOf(slow.id)).every((m) => m.status === "delivered"));
    expect((await messagesOf(slow.id)).map((m) => m.attempts)).toEqual(msgs.map(() => 1));
    expect(await messagesOf(fast.id)).toHaveLength(N);
  }, 60_000);

  it("disables an endpoint that has failed for longer than the threshold and writes webhook.disabled", async () => {
    const t = await tenant();
    const hook = await addWebhook(t.environmentId, "/dead", ["user.updated"]);
    rx.script("/dead", () => ({ status: 502 }));
    // It has been failing for two days (the sandbox threshold is one day).
    await app.db.none(`UPDATE webhooks SET failing_since = now() - interval '2 days' WHERE id = $1`, [hook.id]);
    await emit(t, "user.updated", { id: randomUUID() });
    const w = await waitFor("disabled", async () => {
      const r = await app.db.one(`SELECT * FROM webhooks WHERE id = $1`, [hook.id]);
      return r.enabled_at === null && r;
    });
    expect(w.disabled_reason).toBe("failing");
    expect(rx.received("/dead")).toHaveLength(1);
    const [msg] = await messagesOf(hook.id);
    expect(msg.status).toBe("failed");
    const ev = await app.db.one(`SELECT e.*, a.actor_token_id FROM events e JOIN audit_log a ON a.id = e.audit_id
      WHERE e.resource_id = $1 AND e.event_name = 'webhook.disabled'`, [hook.id]);
    expect(ev.actor_token_id).toBeNull();
    expect(ev.data).toMatchObject({ id: hook.id, disabledReason: "failing", enabled: false });
    expect(ev.organization_id).toBe(t.organizationId);
  });

  it("a failure under the threshold keeps the endpoint enabled; a success clears failing_since", async () => {
    const t = await tenant();
    const hook = await addWebhook(t.environmentId, "/recovering", ["user.updated"]);
    rx.script("/recovering", ({ n }) => ({ status: n === 1 ? 500 : 200 }));
    await app.db.none(`UPDATE webhooks SET failing_since = now() - interval '23 hours' WHERE id = $1`, [hook.id]);
    await emit(t, "user.updated", { id: randomUUID() });
    await waitFor("2 requests", async () => rx.received("/recovering").length === 2);
    const w = await waitFor("failing cleared", async () => {
      const r = await app.db.one(`SELECT * FROM webhooks WHERE id = $1`, [hook.id]);
      return r.failing_since === null && r;
    });
    expect(w.enabled_at).not.toBeNull();
  });

  it("cancels pending messages of an endpoint that was disabled meanwhile", async () => {
    const t = await tenant();
    const hook = await addWebhook(t.environmentId, "/to-disable", ["user.updated"]);
    rx.script("/to-disable", () => ({ status: 500 }));
    await emit(t, "user.updated", { id: randomUUID() });
    await waitFor("first attempt", async () => rx.received("/to-disable").length >= 1);
    await app.db.none(`UPDATE webhooks SET enabled_at = NULL WHERE id = $1`, [hook.id]);
    const [msg] = await messagesOf(hook.id);
    await waitFor("cancelled", async () => (await app.db.one(`SELECT status FROM webhook_messages WHERE id = $1`, [msg.id])).status === "cancelled");
    const n = rx.received("/to-disable").length;
    expect(n).toBeLessThan(SCHEDULE.length);
    const result = await app.temporal.workflow.getHandle(workflowIds.webhookEndpoint(hook.id)).result();
    expect(result).toMatchObject({ status: "stopped", reason: "disabled" });
  });

  it("encrypts sensitive fields to the environment's newest key, with its kid; the private key decrypts them", async () => {
    const t = await tenant();
    const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const reg = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/waas/delegatedAccess/encryptionPublicKeys`, {
      token: t.token,
      body: { publicKey: publicKey.export({ type: "spki", format: "pem" }).toString(), alg: "HYBRID-RSA-AES-256", type: "external" },
    });
    expect(reg.status, reg.text).toBe(201);
    const hook = await addWebhook(t.environmentId, "/encrypted", ["user.created"]);
    const email = `enc-${randomUUID()}@example.com`;
    const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/users`, {
      token: t.token,
      body: { email, firstName: "Ada", alias: "public-alias" },
    });
    expect(res.status, res.text).toBe(201);
    const [got] = await waitFor("delivery", async () => rx.received("/encrypted").length && rx.received("/encrypted"));
    const body = new Webhook(hook.secret).verify(got!.body, got!.headers) as any;
    expect(body.kid).toBe(reg.body.kid);
    expect(body.data.alias).toBe("public-alias");
    expect(JSON.stringify(body)).not.toContain(email);
    expect(JSON.stringify(body)).not.toContain("Ada");
    const jwe = body.data.email.encrypted as string;
    expect(decodeProtectedHeader(jwe)).toMatchObject({ alg: "RSA-OAEP-256", enc: "A256GCM", kid: reg.body.kid });
    const dec = async (v: { encrypted: string }) => JSON.parse(new TextDecoder().decode((await compactDecrypt(v.encrypted, privateKey)).plaintext));
    expect(await dec(body.data.email)).toBe(email);
    expect(await dec(body.data.firstName)).toBe("Ada");
    // The event itself is stored in clear (it is the service's own record); only what leaves is encrypted.
    const ev = await app.db.one(`SELECT data FROM events WHERE id = $1`, [body.eventId]);
    expect(ev.data.email).toBe(email);
  });

  it("a redelivery sends the same message again with redelivery: true, as its own workflow", async () => {
    const t = await tenant();
    const hook = await addWebhook(t.environmentId, "/again", ["user.updated"]);
    await emit(t, "user.updated", { id: randomUUID(), alias: "again" });
    const [first] = await waitFor("delivery", async () => rx.received("/again").length && rx.received("/again"));
    const [msg] = await messagesOf(hook.id);
    await waitFor("delivered", async () => (await app.db.one(`SELECT status FROM webhook_messages WHERE id = $1`, [msg.id])).status === "delivered");
    await app.deps.flows.startWebhookDelivery({ environmentId: t.environmentId, messageId: msg.id, redelivery: 1 });
    await waitFor("redelivery", async () => rx.received("/again").length === 2);
    const second = rx.received("/again")[1]!;
    const a = new Webhook(hook.secret).verify(first!.body, first!.headers) as any;
    const b = new Webhook(hook.secret).verify(second.body, second.headers) as any;
    expect(a.redelivery).toBe(false);
    expect(b.redelivery).toBe(true);
    expect({ ...b, redelivery: false }).toEqual(a);
    expect(second.headers["webhook-id"]).toBe(msg.id);
    const handle = app.temporal.workflow.getHandle(workflowIds.webhookDelivery(msg.id, 1));
    expect(handle.workflowId).toBe(`webhook-delivery/${msg.id}/redelivery-1`);
    expect(await handle.result()).toMatchObject({ status: "delivered", attempts: 1 });
    const ds = await deliveriesOf(msg.id);
    expect(ds.map((d) => d.redelivery)).toEqual([false, true]);
    // Starting the original delivery again neither repeats it nor fails.
    await app.deps.flows.startWebhookDelivery({ environmentId: t.environmentId, messageId: msg.id });
    // Nothing to wait for: the test is that no third request comes within this time.
    await new Promise((r) => setTimeout(r, 500));
    expect(rx.received("/again")).toHaveLength(2);
  });

  it("delivers a ping message started by its creator", async () => {
    const t = await tenant();
    const hook = await addWebhook(t.environmentId, "/ping", []);
    const { messageId } = await insertPingMessage(app.db, { webhookId: hook.id, environmentId: t.environmentId, environmentName: "sandbox" });
    await app.deps.flows.startWebhookDelivery({ environmentId: t.environmentId, messageId });
    const [got] = await waitFor("ping", async () => rx.received("/ping").length && rx.received("/ping"));
    expect(new Webhook(hook.secret).verify(got!.body, got!.headers)).toMatchObject({ eventName: "ping", eventId: null, messageId });
  });

  it("starts the delivery of a message whose workflow was never started (crash between commit and start)", async () => {
    const t = await tenant();
    const hook = await addWebhook(t.environmentId, "/orphan", []);
    const { messageId } = await insertPingMessage(app.db, { webhookId: hook.id, environmentId: t.environmentId, environmentName: "sandbox" });
    // Nobody starts it: the dispatcher's sweep does, once it is older than orphanAfterMs.
    const [got] = await waitFor("orphan delivery", async () => rx.received("/orphan").length && rx.received("/orphan"), { timeoutMs: 15_000 });
    expect(got!.headers["webhook-id"]).toBe(messageId);
    const m = await app.db.one(`SELECT * FROM webhook_messages WHERE id = $1`, [messageId]);
    expect(m.workflow_seen_at).not.toBeNull();
  });

  it("a webhook subscribed to \"*\" gets every service event, and only the subscribed names reach the others", async () => {
    const t = await tenant();
    const all = await addWebhook(t.environmentId, "/all", ["*"]);
    const some = await addWebhook(t.environmentId, "/some", ["user.deleted"]);
    await emit(t, "user.created", { id: randomUUID() });
    await emit(t, "wallet.created", { id: randomUUID() });
    const names = await waitFor("two messages", async () => {
      const rows = await messagesOf(all.id);
      return rows.length === 2 ? rows.map((r) => r.event_name).sort() : undefined;
    });
    expect(names).toEqual(["user.created", "wallet.created"]);
    expect(await messagesOf(some.id)).toHaveLength(0);
  });

  it("marks client events dispatched without delivering them; events of an environment without webhooks too", async () => {
    const t = await tenant();
    const hook = await addWebhook(t.environmentId, "/client", ["user.updated"]);
    const clientEvent = await emit(t, "client.page_view", { page: "/" }, "client");
    const plain = await emit(t, "user.created", { id: randomUUID() });
    await waitFor("dispatched", async () => {
      const rows = await app.db.any(`SELECT dispatched_at FROM events WHERE id = ANY($1::uuid[])`, [[clientEvent, plain]]);
      return rows.every((r) => r.dispatched_at !== null);
    });
    expect(await messagesOf(hook.id)).toHaveLength(0);
  });

  it("several dispatchers at once create each message exactly once", async () => {
    const t = await tenant();
    const hook = await addWebhook(t.environmentId, "/many", ["user.updated"]);
    await app.dispatcher.stop();
    try {
      for (let i = 0; i < 60; i++) await emit(t, "user.updated", { id: randomUUID(), i });
      const { createDispatcher } = await import("../../src/outbox/dispatcher.js");
      const ds = [1, 2, 3].map(() => createDispatcher(app.deps));
      await Promise.all(ds.map((d) => d.drain()));
      const msgs = await messagesOf(hook.id);
      expect(msgs).toHaveLength(60);
      expect(new Set(msgs.map((m) => m.event_id)).size).toBe(60);
    } finally {
      await app.dispatcher.start();
    }
    await waitFor("60 deliveries", async () => new Set(rx.received("/many").map((r) => r.headers["webhook-id"])).size === 60);
  }, 40_000);
});
