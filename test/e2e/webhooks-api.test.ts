import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebhooksService } from "../../src/gen/sigil/webhooks/v0/webhooks_service_pb.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { webhookSecretAad } from "../../src/domain/webhooks/secret.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { seedWebhooks } from "./support/seed-webhooks.js";

/**
 * The webhooks API (issue 4): endpoints, their signing secrets, messages, delivery attempts and redelivery.
 * Deliveries themselves are the delivery engine's: these tests never wait for an HTTP delivery. Endpoints
 * point at a closed loopback port (sandbox) or a reserved .invalid name (live).
 */

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;

const email = () => `${randomUUID()}@example.com`;
const SECRET_SHAPE = /^whsec_[A-Za-z0-9+/]{43}=$/;
const SANDBOX_URL = "http://127.0.0.1:9/hooks";

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: email() });
  other = await app.bootstrap({ ownerEmail: email() });
}, 60_000);
afterAll(() => app?.stop());

const base = (tenant: BootstrapResult, env = tenant.environmentId) => `/environments/${env}/webhooks`;

async function create(tenant: BootstrapResult, body: Record<string, unknown> = {}) {
  const res = await call(app.baseUrl, "POST", base(tenant), {
    token: tenant.token,
    body: { url: SANDBOX_URL, events: ["user.created"], ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const sealedOf = async (id: string) => (await app.db.one("SELECT secret_sealed FROM webhooks WHERE id = $1", [id])).secret_sealed as string;
const count = async (sql: string, params: unknown[]) => (await app.db.one(`SELECT count(*)::int AS n FROM (${sql}) x`, params)).n as number;
const auditRows = (resourceId: string, action: string) => app.db.any("SELECT * FROM audit_log WHERE resource_id = $1 AND action = $2", [resourceId, action]);

/**
 * Everything the webhooks API could change in an environment, to prove that a refused call changed nothing
 * (not the delivery engine's bookkeeping: failing_since, attempts, which its workflows move meanwhile).
 */
async function snapshot(environmentId: string) {
  const row = await app.db.one(
    `SELECT (SELECT count(*) FROM webhooks WHERE environment_id = $1)::int AS webhooks,
            (SELECT md5(coalesce(string_agg(concat_ws('|', w.id, w.url, w.description, w.event_names::text, w.secret_sealed, w.enabled_at), ',' ORDER BY w.id), ''))
               FROM webhooks w WHERE environment_id = $1) AS hash,
            (SELECT count(*) FROM webhook_messages WHERE environment_id = $1)::int AS messages,
            (SELECT coalesce(sum(redeliveries), 0) FROM webhook_messages WHERE environment_id = $1)::int AS redeliveries,
            (SELECT count(*) FROM audit_log WHERE environment_id = $1)::int AS audit`,
    [environmentId],
  );
  return row;
}

/**
 * A message with one recorded attempt, as the delivery engine leaves them (inserted: no workflow runs for
 * it): the attempt stores the envelope exactly as sent. Returns the message's and the attempt's ids.
 */
async function storedMessageWithDelivery(environmentId: string, webhookId: string, opts: { status?: string; createdAt?: string } = {}) {
  const id = randomUUID();
  const deliveryId = randomUUID();
  const envelope = { messageId: id, webhookId, eventName: "user.created", data: { id: "u" } };
  await app.db.none(
    `INSERT INTO webhook_messages (id, environment_id, webhook_id, event_id, event_name, payload, status, attempts, created_at)
     VALUES ($1, $2, $3, NULL, 'user.created', $4, $5, 1, coalesce($6::timestamptz, clock_timestamp()))`,
    [id, environmentId, webhookId, envelope, opts.status ?? "failed", opts.createdAt ?? null],
  );
  await app.db.none(
    `INSERT INTO webhook_deliveries (id, environment_id, webhook_id, message_id, attempt, redelivery, request_url, request_body,
       response_status, response_body_excerpt, error, started_at, duration_ms)
     VALUES ($1, $2, $3, $4, 1, false, $5, $6, 500, 'upstream broke', NULL, now(), 42)`,
    [deliveryId, environmentId, webhookId, id, SANDBOX_URL, JSON.stringify(envelope)],
  );
  return { id, deliveryId };
}

const storedMessage = async (...args: Parameters<typeof storedMessageWithDelivery>) => (await storedMessageWithDelivery(...args)).id;

describe("creating a webhook", () => {
  it("returns the signing secret once, seals it bound to the webhook, audits without it and queues a ping", async () => {
    const w = await create(t, { events: ["user.created", "wallet.created", "user.created"], description: "orders" });
    expect(w).toMatchObject({ url: SANDBOX_URL, events: ["user.created", "wallet.created"], description: "orders", isEnabled: true });
    expect(w.webhookId).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof w.enabledAt).toBe("string");
    expect(w.secret).toMatch(SECRET_SHAPE);
    expect(Buffer.from(w.secret.slice("whsec_".length), "base64")).toHaveLength(32);

    const sealed = await sealedOf(w.webhookId);
    expect(sealed).not.toContain(w.secret.slice(6));
    expect(app.deps.sealer.open(sealed, webhookSecretAad(w.webhookId))).toBe(w.secret);
    // Bound to its row: the same sealed value does not open as another webhook's.
    expect(() => app.deps.sealer.open(sealed, webhookSecretAad(randomUUID()))).toThrow();

    const rows = await auditRows(w.webhookId, "webhook.created");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ environment_id: t.environmentId, resource_type: "webhook", actor_token_id: t.tokenId });
    expect(rows[0].changes.after).toMatchObject({ url: SANDBOX_URL, eventNames: ["user.created", "wallet.created"] });
    const json = JSON.stringify(rows[0]);
    expect(json).not.toContain(w.secret.slice(6));
    expect(json).not.toContain(sealed);

    const pings = await app.db.any("SELECT * FROM webhook_messages WHERE webhook_id = $1 AND event_name = 'ping'", [w.webhookId]);
    expect(pings).toHaveLength(1);
    expect(pings[0]).toMatchObject({ environment_id: t.environmentId, event_id: null });
    expect(pings[0].payload).toMatchObject({ messageId: pings[0].id, webhookId: w.webhookId, eventName: "ping", environmentId: t.environmentId, environmentName: "sandbox" });
    // The change is an event too (the outbox), without the secret.
    const events = await app.db.any("SELECT * FROM events WHERE resource_id = $1 AND event_name = 'webhook.created'", [w.webhookId]);
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events[0].data)).not.toContain(w.secret.slice(6));
  });

  it("accepts \"*\" for every event, creates a disabled endpoint without a ping, and serves member tokens", async () => {
    const res = await call(app.baseUrl, "POST", base(t), {
      token: t.memberToken,
      body: { url: "https://hooks.example.com/all", events: ["user.created", "*"], isEnabled: false },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ events: ["*"], isEnabled: false, enabledAt: null });
    expect(await count("SELECT 1 FROM webhook_messages WHERE webhook_id = $1", [res.body.webhookId])).toBe(0);
  });

  it("accepts https endpoints in a live environment", async () => {
    const res = await call(app.baseUrl, "POST", base(t, t.liveEnvironmentId), {
      token: t.memberToken,
      body: { url: "https://hooks.example.invalid/live", events: ["wallet.created"] },
    });
    expect(res.status, res.text).toBe(201);
    const ping = await app.db.one("SELECT payload FROM webhook_messages WHERE webhook_id = $1", [res.body.webhookId]);
    expect(ping.payload.environmentName).toBe("live");
  });

  it("refuses bad input with the spec's error body and changes nothing", async () => {
    const before = await snapshot(t.environmentId);
    const liveBefore = await snapshot(t.liveEnvironmentId);
    const cases: [string, string, Record<string, unknown>, number, string | null][] = [
      ["sandbox", t.token, { url: "not a url", events: ["user.created"] }, 400, null],
      ["sandbox", t.token, { url: "ftp://example.com/x", events: ["user.created"] }, 400, null],
      ["sandbox", t.token, { url: `https://example.com/${"a".repeat(2048)}`, events: ["user.created"] }, 400, null],
      ["sandbox", t.token, { url: "https://user:pw@example.com/x", events: ["user.created"] }, 400, "webhook_url_credentials_not_allowed"],
      ["sandbox", t.token, { url: SANDBOX_URL, events: ["user.created", "user.exploded"] }, 400, "unknown_event_name"],
      ["sandbox", t.token, { url: SANDBOX_URL, events: ["client.clicked"] }, 400, "unknown_event_name"],
      ["sandbox", t.token, { url: SANDBOX_URL, events: ["ping"] }, 400, "unknown_event_name"],
      ["sandbox", t.token, { url: SANDBOX_URL, events: [] }, 400, null],
      ["sandbox", t.token, { url: SANDBOX_URL }, 400, null],
      ["sandbox", t.token, { url: SANDBOX_URL, events: ["user.created"], description: "d".repeat(1025) }, 400, null],
      ["live", t.memberToken, { url: "http://hooks.example.com/x", events: ["user.created"] }, 400, "webhook_url_https_required"],
      ["live", t.memberToken, { url: "https://127.0.0.1/x", events: ["user.created"] }, 400, "webhook_url_host_not_allowed"],
      ["live", t.memberToken, { url: "https://localhost:8443/x", events: ["user.created"] }, 400, "webhook_url_host_not_allowed"],
      ["live", t.memberToken, { url: "https://[::1]/x", events: ["user.created"] }, 400, "webhook_url_host_not_allowed"],
      ["live", t.memberToken, { url: "https://10.1.2.3/x", events: ["user.created"] }, 400, "webhook_url_host_not_allowed"],
      ["live", t.memberToken, { url: "https://169.254.169.254/latest", events: ["user.created"] }, 400, "webhook_url_host_not_allowed"],
    ];
    for (const [where, token, body, status, code] of cases) {
      const env = where === "live" ? t.liveEnvironmentId : t.environmentId;
      const res = await call(app.baseUrl, "POST", base(t, env), { token, body });
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(status);
      expect(typeof res.body.error).toBe("string");
      if (code) expect(res.body.code).toBe(code);
      else expect(typeof res.body.code).toBe("string");
    }
    expect(await snapshot(t.environmentId)).toEqual(before);
    expect(await snapshot(t.liveEnvironmentId)).toEqual(liveBefore);
  });

  it("caps the webhooks of an environment (422) without storing the extra one", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    await Promise.all(Array.from({ length: 20 }, (_, i) => create(tenant, { url: `http://127.0.0.1:9/cap-${i}`, isEnabled: false })));
    const before = await snapshot(tenant.environmentId);
    const res = await call(app.baseUrl, "POST", base(tenant), { token: tenant.token, body: { url: SANDBOX_URL, events: ["user.created"] } });
    expect(res.status, res.text).toBe(422);
    expect(res.body).toMatchObject({ code: "webhook_limit_reached" });
    expect(await snapshot(tenant.environmentId)).toEqual(before);
    expect(before.webhooks).toBe(20);
  });
});

describe("reading, updating and deleting webhooks", () => {
  it("lists (newest first, paginated with count) and reads webhooks without their secret", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const a = await create(tenant, { description: "first" });
    const b = await create(tenant, { description: "second" });
    const list = await call(app.baseUrl, "GET", base(tenant), { token: tenant.token });
    expect(list.status, list.text).toBe(200);
    expect(list.body.count).toBe(2);
    expect(list.body.data.map((w: any) => w.webhookId)).toEqual([b.webhookId, a.webhookId]);
    expect(list.text).not.toContain("whsec_");
    expect(list.body.data[0].secret).toBeUndefined();
    expect(list.body.cursor).toBeUndefined();
    const page = await call(app.baseUrl, "GET", `${base(tenant)}?limit=1&offset=1`, { token: tenant.token });
    expect(page.body).toMatchObject({ count: 2, data: [{ webhookId: a.webhookId }] });
    expect(page.body.data).toHaveLength(1);
    // The first page of one names the cursor of the next: the older webhook.
    const first = await call(app.baseUrl, "GET", `${base(tenant)}?limit=1`, { token: tenant.token });
    expect(first.body).toMatchObject({ count: 2, data: [{ webhookId: b.webhookId }] });
    expect(typeof first.body.cursor).toBe("string");
    const next = await call(app.baseUrl, "GET", `${base(tenant)}?limit=1&cursor=${encodeURIComponent(first.body.cursor)}`, { token: tenant.token });
    expect(next.body).toMatchObject({ count: 2, data: [{ webhookId: a.webhookId }] });
    expect(next.body.cursor).toBeUndefined();

    const one = await call(app.baseUrl, "GET", `${base(tenant)}/${a.webhookId}`, { token: tenant.token });
    expect(one.status, one.text).toBe(200);
    expect(one.body).toMatchObject({ webhookId: a.webhookId, url: SANDBOX_URL, events: ["user.created"], description: "first", isEnabled: true });
    expect(one.text).not.toContain("whsec_");
    expect((await call(app.baseUrl, "GET", `${base(tenant)}/${randomUUID()}`, { token: tenant.token })).status).toBe(404);
  });

  it("updates the given fields, audits before and after, and refuses bad input without changing anything", async () => {
    const w = await create(t, { description: "to update" });
    const res = await call(app.baseUrl, "PUT", `${base(t)}/${w.webhookId}`, {
      token: t.token,
      body: { url: "https://hooks.example.com/v2", events: ["wallet.created", "wallet.deleted"], description: "" },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ webhookId: w.webhookId, url: "https://hooks.example.com/v2", events: ["wallet.created", "wallet.deleted"], isEnabled: true });
    expect(res.body.description).toBeUndefined();
    expect(res.body.secret).toBeUndefined();
    const rows = await auditRows(w.webhookId, "webhook.updated");
    expect(rows).toHaveLength(1);
    expect(rows[0].changes.before).toMatchObject({ url: SANDBOX_URL, description: "to update" });
    expect(rows[0].changes.after).toMatchObject({ url: "https://hooks.example.com/v2", description: null });

    const before = await snapshot(t.environmentId);
    for (const body of [{ events: ["user.nope"] }, { url: "https://a:b@example.com/" }, { url: "mailto:x@example.com" }]) {
      const bad = await call(app.baseUrl, "PUT", `${base(t)}/${w.webhookId}`, { token: t.token, body });
      expect(bad.status, bad.text).toBe(400);
      expect(typeof bad.body.code).toBe("string");
    }
    expect(await snapshot(t.environmentId)).toEqual(before);
    // A live environment's rules apply to updates too.
    const live = await call(app.baseUrl, "POST", base(t, t.liveEnvironmentId), {
      token: t.memberToken,
      body: { url: "https://hooks.example.invalid/upd", events: ["user.created"] },
    });
    const liveBefore = await snapshot(t.liveEnvironmentId);
    const insecure = await call(app.baseUrl, "PUT", `${base(t, t.liveEnvironmentId)}/${live.body.webhookId}`, {
      token: t.memberToken,
      body: { url: "http://hooks.example.invalid/upd" },
    });
    expect(insecure.status, insecure.text).toBe(400);
    expect(insecure.body.code).toBe("webhook_url_https_required");
    expect(await snapshot(t.liveEnvironmentId)).toEqual(liveBefore);
  });

  it("disables and enables a webhook, each audited", async () => {
    const w = await create(t);
    const off = await call(app.baseUrl, "PUT", `${base(t)}/${w.webhookId}/disable`, { token: t.token });
    expect(off.status, off.text).toBe(200);
    expect(off.body).toMatchObject({ webhookId: w.webhookId, isEnabled: false, enabledAt: null });
    expect((await app.db.one("SELECT enabled_at FROM webhooks WHERE id = $1", [w.webhookId])).enabled_at).toBeNull();
    const on = await call(app.baseUrl, "PUT", `${base(t)}/${w.webhookId}/enable`, { token: t.token });
    expect(on.status, on.text).toBe(200);
    expect(on.body.isEnabled).toBe(true);
    expect(typeof on.body.enabledAt).toBe("string");
    expect(await auditRows(w.webhookId, "webhook.disabled")).toHaveLength(1);
    expect(await auditRows(w.webhookId, "webhook.enabled")).toHaveLength(1);
    expect((await call(app.baseUrl, "PUT", `${base(t)}/${randomUUID()}/enable`, { token: t.token })).status).toBe(404);
  });

  it("rotates the signing secret: a new one returned once, sealed in place of the old, audited without it", async () => {
    const w = await create(t);
    const oldSealed = await sealedOf(w.webhookId);
    const res = await call(app.baseUrl, "POST", `${base(t)}/${w.webhookId}/secret/rotate`, { token: t.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.webhookId).toBe(w.webhookId);
    expect(res.body.secret).toMatch(SECRET_SHAPE);
    expect(res.body.secret).not.toBe(w.secret);
    const sealed = await sealedOf(w.webhookId);
    expect(sealed).not.toBe(oldSealed);
    expect(app.deps.sealer.open(sealed, webhookSecretAad(w.webhookId))).toBe(res.body.secret);
    const rows = await auditRows(w.webhookId, "webhook.secret_rotated");
    expect(rows).toHaveLength(1);
    const json = JSON.stringify(rows[0]);
    expect(json).not.toContain(res.body.secret.slice(6));
    expect(json).not.toContain(sealed);
    const read = await call(app.baseUrl, "GET", `${base(t)}/${w.webhookId}`, { token: t.token });
    expect(read.text).not.toContain("whsec_");
  });

  it("deletes a webhook with its messages (204), audited", async () => {
    const w = await create(t);
    const messageId = await storedMessage(t.environmentId, w.webhookId);
    const res = await call(app.baseUrl, "DELETE", `${base(t)}/${w.webhookId}`, { token: t.token });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe("");
    expect((await call(app.baseUrl, "GET", `${base(t)}/${w.webhookId}`, { token: t.token })).status).toBe(404);
    expect(await count("SELECT 1 FROM webhook_messages WHERE id = $1", [messageId])).toBe(0);
    const rows = await auditRows(w.webhookId, "webhook.deleted");
    expect(rows).toHaveLength(1);
    expect(rows[0].changes.before).toMatchObject({ id: w.webhookId, url: SANDBOX_URL });
    expect(JSON.stringify(rows[0])).not.toContain("secretSealed");
    expect((await call(app.baseUrl, "DELETE", `${base(t)}/${w.webhookId}`, { token: t.token })).status).toBe(404);
  });
});

describe("messages, delivery attempts and redelivery", () => {
  it("lists a webhook's messages newest first with count, filtered by status", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const w = await create(tenant);
    const older = await storedMessage(tenant.environmentId, w.webhookId, { createdAt: "2020-01-01T00:00:00Z" });
    const newer = await storedMessage(tenant.environmentId, w.webhookId, { status: "delivered", createdAt: "2020-01-02T00:00:00Z" });
    const res = await call(app.baseUrl, "GET", `${base(tenant)}/${w.webhookId}/messages`, { token: tenant.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.count).toBe(3);
    const [ping, second, third] = res.body.data;
    // The envelope is what the (latest) attempt sent, or will send while there is none yet.
    expect(ping).toMatchObject({ webhookId: w.webhookId, eventName: "ping", request: { body: { eventName: "ping", webhookId: w.webhookId } } });
    expect(["pending", "delivered", "failed"]).toContain(ping.status);
    expect(ping.eventId).toBe(""); // the ping belongs to no event
    expect([second.messageId, third.messageId]).toEqual([newer, older]);
    expect(third).toMatchObject({
      environmentId: tenant.environmentId,
      eventName: "user.created",
      status: "failed",
      deliveryAttempt: 1,
      attempts: 1,
      redeliveries: 0,
      messageCreatedAt: "2020-01-01T00:00:00Z",
      succeededAt: null,
      nextAttemptAt: null,
      request: { url: SANDBOX_URL, body: { messageId: older, data: { id: "u" } } },
      response: { status: 500, body: "upstream broke", durationMs: 42 },
    });
    expect(typeof third.deliveryId).toBe("string");
    expect(typeof third.deliveredAt).toBe("string");
    expect(third.id).toBeUndefined();
    expect(third.payload).toBeUndefined();

    const page = await call(app.baseUrl, "GET", `${base(tenant)}/${w.webhookId}/messages?limit=1&offset=2`, { token: tenant.token });
    expect(page.body).toMatchObject({ count: 3, data: [{ messageId: older }] });
    expect(page.body.data).toHaveLength(1);
    expect(page.body.cursor).toBeUndefined();
    const delivered = await call(app.baseUrl, "GET", `${base(tenant)}/${w.webhookId}/messages?status=delivered`, { token: tenant.token });
    expect(delivered.body.data.map((m: any) => m.messageId)).toContain(newer);
    expect(delivered.body.data.map((m: any) => m.messageId)).not.toContain(older);
    const badStatus = await call(app.baseUrl, "GET", `${base(tenant)}/${w.webhookId}/messages?status=lost`, { token: tenant.token });
    expect(badStatus.status).toBe(400);
    expect((await call(app.baseUrl, "GET", `${base(tenant)}/${randomUUID()}/messages`, { token: tenant.token })).status).toBe(404);
  });

  it("reads a message with its delivery attempts; a message of another webhook in the path is 404", async () => {
    const w = await create(t);
    const sibling = await create(t);
    const { id: messageId, deliveryId } = await storedMessageWithDelivery(t.environmentId, w.webhookId);
    const res = await call(app.baseUrl, "GET", `${base(t)}/${w.webhookId}/messages/${messageId}`, { token: t.token });
    expect(res.status, res.text).toBe(200);
    // The message once per attempt (one here), each with what was sent and what came back.
    expect(res.body.count).toBe(1);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({
      messageId,
      webhookId: w.webhookId,
      status: "failed",
      deliveryId,
      deliveryAttempt: 1,
      redelivery: false,
      request: { url: SANDBOX_URL, body: { messageId, eventName: "user.created" } },
      response: { status: 500, body: "upstream broke", error: null, durationMs: 42 },
    });
    expect(typeof res.body.data[0].deliveredAt).toBe("string");
    expect((await call(app.baseUrl, "GET", `${base(t)}/${sibling.webhookId}/messages/${messageId}`, { token: t.token })).status).toBe(404);
    expect((await call(app.baseUrl, "GET", `${base(t)}/${w.webhookId}/messages/${randomUUID()}`, { token: t.token })).status).toBe(404);
  });

  it("redelivers a message: counted and audited together; other webhooks, tenants and disabled endpoints change nothing", async () => {
    const w = await create(t);
    const sibling = await create(t);
    const messageId = await storedMessage(t.environmentId, w.webhookId);
    const path = `${base(t)}/${w.webhookId}/messages/${messageId}/redeliver`;
    const first = await call(app.baseUrl, "POST", path, { token: t.token });
    expect(first.status, first.text).toBe(202);
    expect(first.body).toEqual({ message: `redelivery 1 of message ${messageId} queued`, messageId, redelivery: 1 });
    const second = await call(app.baseUrl, "POST", path, { token: t.memberToken });
    expect(second.status, second.text).toBe(202);
    expect(second.body).toEqual({ message: `redelivery 2 of message ${messageId} queued`, messageId, redelivery: 2 });
    expect((await app.db.one("SELECT redeliveries FROM webhook_messages WHERE id = $1", [messageId])).redeliveries).toBe(2);
    const listed = await call(app.baseUrl, "GET", `${base(t)}/${w.webhookId}/messages`, { token: t.token });
    expect(listed.body.data.find((m: any) => m.messageId === messageId)).toMatchObject({ redeliveries: 2 });
    const rows = await app.db.any("SELECT * FROM audit_log WHERE resource_id = $1 AND action = 'webhook_message.redelivered' ORDER BY created_at", [messageId]);
    expect(rows.map((r) => r.changes.after.redelivery)).toEqual([1, 2]);
    expect(rows[0]).toMatchObject({ resource_type: "webhook_message", environment_id: t.environmentId });

    const before = await snapshot(t.environmentId);
    const refused: [string, string, number][] = [
      [`${base(t)}/${sibling.webhookId}/messages/${messageId}/redeliver`, t.token, 404],
      [`${base(t)}/${w.webhookId}/messages/${randomUUID()}/redeliver`, t.token, 404],
      [path, other.token, 404],
      [path, other.memberToken, 404],
      [`${base(other)}/${w.webhookId}/messages/${messageId}/redeliver`, other.token, 404],
      [`${base(t)}/${w.webhookId}/messages/not-a-uuid/redeliver`, t.token, 400],
    ];
    for (const [p, token, status] of refused) {
      const res = await call(app.baseUrl, "POST", p, { token });
      expect(res.status, `${p}: ${res.text}`).toBe(status);
      expect(typeof res.body.code).toBe("string");
    }
    expect(await snapshot(t.environmentId)).toEqual(before);

    await call(app.baseUrl, "PUT", `${base(t)}/${w.webhookId}/disable`, { token: t.token });
    const disabledBefore = await snapshot(t.environmentId);
    const disabled = await call(app.baseUrl, "POST", path, { token: t.token });
    expect(disabled.status, disabled.text).toBe(422);
    expect(disabled.body.code).toBe("webhook_disabled");
    expect(await snapshot(t.environmentId)).toEqual(disabledBefore);
  });
});

describe("tenancy", () => {
  it("answers 404 to another tenant's environment and member tokens and changes nothing", async () => {
    const w = await create(t);
    const messageId = await storedMessage(t.environmentId, w.webhookId);
    const before = await snapshot(t.environmentId);
    const sealed = await sealedOf(w.webhookId);
    const ops: [string, string, unknown?][] = [
      ["GET", ""],
      ["POST", "", { url: SANDBOX_URL, events: ["user.created"] }],
      ["GET", `/${w.webhookId}`],
      ["PUT", `/${w.webhookId}`, { description: "hijacked" }],
      ["DELETE", `/${w.webhookId}`],
      ["PUT", `/${w.webhookId}/enable`],
      ["PUT", `/${w.webhookId}/disable`],
      ["POST", `/${w.webhookId}/secret/rotate`],
      ["GET", `/${w.webhookId}/messages`],
      ["GET", `/${w.webhookId}/messages/${messageId}`],
      ["POST", `/${w.webhookId}/messages/${messageId}/redeliver`],
    ];
    for (const [method, suffix, body] of ops) {
      // Their token on our environment, their member token on our environment, their token on their own
      // environment naming our webhook.
      for (const [token, env] of [
        [other.token, t.environmentId],
        [other.memberToken, t.environmentId],
        [other.token, other.environmentId],
      ] as const) {
        if (env === other.environmentId && suffix === "") continue;
        const res = await call(app.baseUrl, method, `/environments/${env}/webhooks${suffix}`, { token, body });
        expect(res.status, `${method} ${suffix} (${env === t.environmentId ? "our env" : "their env"}): ${res.text}`).toBe(404);
        expect(res.body).toMatchObject({ code: "not_found" });
      }
    }
    expect(await snapshot(t.environmentId)).toEqual(before);
    expect(await sealedOf(w.webhookId)).toBe(sealed);
    // The owner still reaches all of it (the ids above are real).
    expect((await call(app.baseUrl, "GET", `${base(t)}/${w.webhookId}/messages/${messageId}`, { token: t.token })).status).toBe(200);
  });
});

describe("over gRPC", () => {
  it("creates, reads and lists webhooks with the connect-es gRPC client", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const headers = { authorization: `Bearer ${tenant.token}` };
    const client = createClient(WebhooksService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const created = await client.createWebhook({ environmentId: tenant.environmentId, url: SANDBOX_URL, events: ["user.deleted"] }, { headers });
    expect(created.webhook?.secret).toMatch(SECRET_SHAPE);
    const read = await client.getWebhook({ environmentId: tenant.environmentId, webhookId: created.webhook!.webhookId }, { headers });
    expect(read.webhook).toMatchObject({ webhookId: created.webhook!.webhookId, events: ["user.deleted"], secret: "", isEnabled: true });
    const list = await client.listWebhooks({ environmentId: tenant.environmentId }, { headers });
    expect(list.count).toBe(1);
    const messages = await client.listWebhookMessages({ environmentId: tenant.environmentId, webhookId: created.webhook!.webhookId }, { headers });
    expect(messages.data[0]?.eventName).toBe("ping");
    await expect(client.getWebhook({ environmentId: tenant.environmentId, webhookId: randomUUID() }, { headers })).rejects.toMatchObject({ code: 5 });
  });
});

describe("the matrix seeder", () => {
  it("returns a real webhook, message and event of the tenant", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const ids = await seedWebhooks(app, tenant);
    const env = tenant.environmentId;
    expect((await call(app.baseUrl, "GET", `/environments/${env}/webhooks/${ids.webhook_id}/messages/${ids.message_id}`, { token: tenant.token })).status).toBe(200);
    expect((await call(app.baseUrl, "GET", `/environments/${env}/events/${ids.event_id}`, { token: tenant.token })).status).toBe(200);
  });
});
