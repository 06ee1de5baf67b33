import http from "node:http";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

/**
 * POST /sdk/{environmentId}/events is public: whoever knows an environment id can call it. An attacker
 * may flood it from one address or from many; neither may fill the environment's event log, and what
 * clients write stays apart from the service's own events.
 */

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ sdkEvents: { perAddressPerMinute: 5, perEnvironmentPerMinute: 8 } });
}, 60_000);
afterAll(() => app?.stop());

const tenant = () => app.bootstrap({ ownerEmail: `sdk-events-${randomUUID()}@example.com` });
const body = { events: [{ name: "client.page_view", data: { n: 1 } }] };

/** POSTs from a chosen loopback address (127.0.0.0/8 all reaches the server), with extra headers. */
function publishFrom(localAddress: string, environmentId: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: any; retryAfter: string | undefined }>((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = http.request(
      { host: "127.0.0.1", port: app.port, localAddress, method: "POST", path: `/api/v0/sdk/${environmentId}/events`, headers: { "content-type": "application/json", ...headers } },
      (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text), retryAfter: res.headers["retry-after"] as string | undefined }));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

const clientEventCount = async (environmentId: string) =>
  (await app.db.one("SELECT count(*)::int AS n FROM events WHERE environment_id = $1 AND source = 'client'", [environmentId])).n as number;

describe("publishing SDK events", () => {
  it("is limited per client address; a spoofed X-Forwarded-For does not reset the count", async () => {
    const t = await tenant();
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 7; i++) {
      last = await publishFrom("127.0.0.11", t.environmentId, { "x-forwarded-for": `203.0.113.${i}`, "x-real-ip": `198.51.100.${i}` });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429, 429]);
    expect(last!.body).toMatchObject({ code: "rate_limited", error: expect.any(String), payload: { scope: "address" } });
    expect(Number(last!.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(last!.body.payload).toEqual({
      scope: "address",
      limit: 5,
      window: "1m",
      setting: "SIGIL_SDK_EVENTS_PER_ADDRESS_PER_MINUTE",
      retryAfterSeconds: Number(last!.retryAfter),
    });
    expect(last!.body.error).toContain("at most 5 a minute (SIGIL_SDK_EVENTS_PER_ADDRESS_PER_MINUTE)");
    expect(await clientEventCount(t.environmentId)).toBe(5);
  });

  it("is limited per environment across addresses; other environments are unaffected", async () => {
    const t = await tenant();
    const other = await tenant();
    const statuses: number[] = [];
    for (const address of ["127.0.0.21", "127.0.0.22", "127.0.0.23"])
      for (let i = 0; i < 3; i++) statuses.push((await publishFrom(address, t.environmentId)).status);
    expect(statuses).toEqual([202, 202, 202, 202, 202, 202, 202, 202, 429]);
    expect(await clientEventCount(t.environmentId)).toBe(8);
    const last = await publishFrom("127.0.0.24", t.environmentId);
    expect(last.body).toMatchObject({
      code: "rate_limited",
      payload: { scope: "environment", limit: 8, window: "1m", setting: "SIGIL_SDK_EVENTS_PER_ENVIRONMENT_PER_MINUTE" },
    });
    expect((await publishFrom("127.0.0.24", other.environmentId)).status).toBe(202);
  });

  it("bounds a request: at most 50 events, 4 KiB of data each, nothing stored from a bad batch", async () => {
    const t = await tenant();
    const many = { events: Array.from({ length: 51 }, () => ({ name: "client.x" })) };
    const tooMany = await call(app.baseUrl, "POST", `/sdk/${t.environmentId}/events`, { body: many });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ code: "validation_error" });
    const big = { events: [{ name: "client.ok" }, { name: "client.big", data: { s: "x".repeat(5000) } }] };
    const tooBig = await call(app.baseUrl, "POST", `/sdk/${t.environmentId}/events`, { body: big });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toMatchObject({ code: "event_data_too_large" });
    expect(await clientEventCount(t.environmentId)).toBe(0);
  });
});

describe("listing events by source", () => {
  it("filters on source=client|service; client events are never the service's", async () => {
    const t = await tenant();
    // A service event: a change made through the management API.
    const user = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/users`, { token: t.token, body: { email: `s-${randomUUID()}@example.com` } });
    expect(user.status, user.text).toBe(201);
    expect((await publishFrom("127.0.0.41", t.environmentId)).status).toBe(202);
    const list = (q: string) => call(app.baseUrl, "GET", `/environments/${t.environmentId}/events${q}`, { token: t.token });
    const client = await list("?source=client");
    expect(client.status, client.text).toBe(200);
    expect(client.body.data.length).toBe(1);
    expect(client.body.data.every((e: any) => e.source === "client" && e.eventName.startsWith("client."))).toBe(true);
    const service = await list("?source=service");
    expect(service.body.data.length).toBeGreaterThan(0);
    expect(service.body.data.every((e: any) => e.source === "service")).toBe(true);
    expect(service.body.count + client.body.count).toBe((await list("")).body.count);
    const bad = await list("?source=anything");
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "validation_error" });
  });
});
