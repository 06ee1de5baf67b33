import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventsService } from "../../src/gen/sigil/events/v0/events_service_pb.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { EVENT_TYPES } from "../../src/domain/events/catalogue.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

/** The event catalogue, the events of an environment, and the SDK's publish-events operation (issue 4). */

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;

const email = () => `${randomUUID()}@example.com`;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: email() });
  other = await app.bootstrap({ ownerEmail: email() });
}, 60_000);
afterAll(() => app?.stop());

async function createUser(tenant: BootstrapResult, userEmail = email()) {
  const res = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/users`, { token: tenant.token, body: { email: userEmail } });
  expect(res.status, res.text).toBe(201);
  return res.body.user;
}

const eventCount = async (environmentId: string) =>
  (await app.db.one("SELECT count(*)::int AS n FROM events WHERE environment_id = $1", [environmentId])).n as number;

describe("GET /eventTypes", () => {
  it("lists the catalogue to any valid token", async () => {
    for (const token of [t.token, t.memberToken]) {
      const res = await call(app.baseUrl, "GET", "/eventTypes", { token });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toHaveLength(EVENT_TYPES.length);
      const names = res.body.map((e: any) => e.name);
      expect(names).toEqual(expect.arrayContaining(["user.created", "user.session.revoked", "wallet.created", "webhook.created"]));
      expect(res.body.find((e: any) => e.name === "user.created").description).toBe("A user was created.");
    }
    expect((await call(app.baseUrl, "GET", "/eventTypes")).status).toBe(401);
  });
});

describe("events of an environment", () => {
  it("shows the events ordinary changes write, newest first, filtered by name and user", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const first = await createUser(tenant);
    const second = await createUser(tenant);
    const base = `/environments/${tenant.environmentId}/events`;

    const byName = await call(app.baseUrl, "GET", `${base}?eventName=user.created`, { token: tenant.token });
    expect(byName.status, byName.text).toBe(200);
    expect(byName.body.count).toBe(2);
    expect(byName.body.data.map((e: any) => e.context.userId)).toEqual([second.id, first.id]);
    const ev = byName.body.data[1];
    expect(ev).toMatchObject({
      eventName: "user.created",
      source: "service",
      context: { userId: first.id },
      eventAction: "created",
      environmentName: "sandbox",
      resourceType: "user",
      resourceId: first.id,
      environmentId: tenant.environmentId,
      occurredAt: null,
    });
    expect(ev.data).toMatchObject({ id: first.id });
    expect(typeof ev.createdAt).toBe("string");

    const byUser = await call(app.baseUrl, "GET", `${base}?userId=${first.id}`, { token: tenant.token });
    expect(byUser.status, byUser.text).toBe(200);
    expect(byUser.body.count).toBeGreaterThanOrEqual(1);
    expect(byUser.body.data.every((e: any) => e.context.userId === first.id)).toBe(true);

    const all = await call(app.baseUrl, "GET", base, { token: tenant.token });
    expect(all.body.count).toBe(await eventCount(tenant.environmentId));
    const page = await call(app.baseUrl, "GET", `${base}?limit=1&offset=1`, { token: tenant.token });
    expect(page.body.count).toBe(all.body.count);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.data[0].eventId).toBe(all.body.data[1].eventId);

    const one = await call(app.baseUrl, "GET", `${base}/${ev.eventId}`, { token: tenant.memberToken });
    expect(one.status, one.text).toBe(200);
    expect(one.body).toEqual(ev);
    expect((await call(app.baseUrl, "GET", `${base}/${randomUUID()}`, { token: tenant.token })).status).toBe(404);
  });

  it("refuses bad filters (400) and other tenants (404)", async () => {
    const user = await createUser(t);
    const base = `/environments/${t.environmentId}/events`;
    for (const q of ["userId=nope", "eventName=User%20Created", "limit=5000", "offset=-1"]) {
      const res = await call(app.baseUrl, "GET", `${base}?${q}`, { token: t.token });
      expect(res.status, `${q}: ${res.text}`).toBe(400);
      expect(typeof res.body.code).toBe("string");
    }
    const ev = (await call(app.baseUrl, "GET", `${base}?userId=${user.id}&eventName=user.created`, { token: t.token })).body.data[0];
    expect(ev.context.userId).toBe(user.id);
    for (const [token, path] of [
      [other.token, base],
      [other.memberToken, base],
      [other.token, `${base}/${ev.eventId}`],
      [other.memberToken, `${base}/${ev.eventId}`],
      [other.token, `/environments/${other.environmentId}/events/${ev.eventId}`],
    ] as const) {
      const res = await call(app.baseUrl, "GET", path, { token });
      expect(res.status, `${path}: ${res.text}`).toBe(404);
      expect(res.body).toMatchObject({ code: "not_found" });
    }
  });

  it("lists events over gRPC", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const user = await createUser(tenant);
    const client = createClient(EventsService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const headers = { authorization: `Bearer ${tenant.token}` };
    const res = await client.listEvents({ environmentId: tenant.environmentId, eventName: "user.created" }, { headers });
    expect(res.count).toBe(1);
    expect(res.data[0]).toMatchObject({ eventName: "user.created", eventAction: "created", context: { userId: user.id }, source: "service" });
    expect(res.data[0]!.data).toMatchObject({ id: user.id });
    const types = await client.listEventTypes({}, { headers });
    expect(types.count).toBe(EVENT_TYPES.length);
  });
});

describe("POST /sdk/{environmentId}/events", () => {
  const publish = (environmentId: string, body: unknown) => call(app.baseUrl, "POST", `/sdk/${environmentId}/events`, { body });

  it("stores client events without a token, listed as source client and never handed to webhooks", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const at = new Date(Date.now() - 60_000).toISOString();
    const res = await publish(tenant.environmentId, {
      events: [
        { name: "client.checkout.opened", data: { cart: 3, items: ["a", "b"] }, timestamp: at },
        { name: "client.page_view" },
      ],
    });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toEqual({ accepted: 2 });
    const list = await call(app.baseUrl, "GET", `/environments/${tenant.environmentId}/events?eventName=client.checkout.opened`, { token: tenant.token });
    expect(list.body.count).toBe(1);
    expect(list.body.data[0]).toMatchObject({ eventName: "client.checkout.opened", source: "client", data: { cart: 3, items: ["a", "b"] } });
    expect(new Date(list.body.data[0].occurredAt).toISOString()).toBe(at);
    expect(list.body.data[0].context.userId).toBeUndefined();
    const rows = await app.db.any("SELECT * FROM events WHERE environment_id = $1 AND source = 'client'", [tenant.environmentId]);
    expect(rows).toHaveLength(2);
    // Outside the outbox's pending set: the dispatcher never fans them out.
    expect(rows.every((r) => r.dispatched_at !== null)).toBe(true);
    expect((await app.db.one("SELECT count(*)::int AS n FROM webhook_messages WHERE event_id = ANY($1::uuid[])", [rows.map((r) => r.id)])).n).toBe(0);
  });

  it("refuses bad batches with the spec's error body and stores none of them", async () => {
    const env = t.environmentId;
    const before = await eventCount(env);
    const ok = { name: "client.ok", data: {} };
    const cases: [unknown, number, string | null][] = [
      [{ events: [] }, 400, null],
      [{}, 400, null],
      [{ events: Array.from({ length: 51 }, () => ok) }, 400, null],
      [{ events: [ok, { name: "user.created" }] }, 400, null],
      [{ events: [{ name: "client.Upper" }] }, 400, null],
      [{ events: [{ name: "client." }] }, 400, null],
      [{ events: [{ name: `client.${"a".repeat(65)}` }] }, 400, null],
      [{ events: [ok, { name: "client.big", data: { blob: "x".repeat(5000) } }] }, 413, "event_data_too_large"],
      [{ events: [{ name: "client.old", timestamp: new Date(Date.now() - 40 * 24 * 3600 * 1000).toISOString() }] }, 400, "invalid_event_timestamp"],
      [{ events: [{ name: "client.future", timestamp: new Date(Date.now() + 3 * 24 * 3600 * 1000).toISOString() }] }, 400, "invalid_event_timestamp"],
    ];
    for (const [body, status, code] of cases) {
      const res = await publish(env, body);
      expect(res.status, `${JSON.stringify(body).slice(0, 120)}: ${res.text}`).toBe(status);
      expect(typeof res.body.error).toBe("string");
      if (code) expect(res.body.code).toBe(code);
    }
    expect(await eventCount(env)).toBe(before);

    const unknown = await publish(randomUUID(), { events: [ok] });
    expect(unknown.status, unknown.text).toBe(404);
    expect(unknown.body.code).toBe("not_found");
    expect((await publish("not-a-uuid", { events: [ok] })).status).toBe(400);

    // The bounds are inclusive: 50 events, and data of just under 4 KiB, are accepted.
    const fifty = Array.from({ length: 50 }, (_, i) => ({ name: "client.bulk", data: { i } }));
    const accepted = await publish(env, { events: fifty });
    expect(accepted.status, accepted.text).toBe(202);
    expect(accepted.body.accepted).toBe(50);
    const large = await publish(env, { events: [{ name: "client.large", data: { pad: "y".repeat(4000) } }] });
    expect(large.status, large.text).toBe(202);
    expect(await eventCount(env)).toBe(before + 51);
  });
});
