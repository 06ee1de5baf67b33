import { randomUUID } from "node:crypto";
import { Configuration, SDKApi } from "@dynamic-labs/sdk-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { createSdkOriginCheck } from "../../src/server/sdk-origins.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

/**
 * CORS on the SDK surface (/api/v0/sdk/{environmentId}/...): an environment with registered origins lets
 * only those pages read its answers (preflights too); one without lets any page, as the management surface
 * does. Each api process reuses an environment's origins for a short TTL (here 300 ms), so a change takes
 * effect within it.
 */

const TTL_MS = 300;
let app: TestApp;
let sdk: SDKApi;
beforeAll(async () => {
  app = await startTestApp({ corsOriginCacheMs: TTL_MS });
  sdk = new SDKApi(new Configuration({ basePath: `${app.baseUrl}/api/v0` }));
}, 60_000);
afterAll(() => app?.stop());

const tenant = () => app.bootstrap({ ownerEmail: `sdk-cors-${randomUUID()}@example.com` });
const addOrigin = async (t: BootstrapResult, origin: string) => {
  const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/origins`, { token: t.token, body: { origin } });
  expect(res.status, res.text).toBe(201);
  return res.body.origin as { id: string };
};
// Time is the subject of the sleeps here: the origin cache's TTL passing.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A browser's preflight of POST with JSON and a bearer token from `origin`. */
const preflight = (path: string, origin: string, method = "POST") =>
  fetch(`${app.baseUrl}/api/v0${path}`, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": method, "access-control-request-headers": "authorization,content-type" },
  });

/** The client's call with the page's Origin, as a browser would send it; the raw answer's headers. */
async function settingsFrom(environmentId: string, origin: string) {
  const res = await sdk.getEnvironmentSettingsRaw({ environmentId }, { headers: { origin } });
  return res.raw.headers;
}

describe("CORS on /sdk when the environment has registered origins", () => {
  it("echoes a registered origin (exact or through *.), with Vary: Origin, on answers and preflights", async () => {
    const t = await tenant();
    await addOrigin(t, "https://app.acme.example");
    await addOrigin(t, "https://*.preview.acme.example");
    for (const origin of ["https://app.acme.example", "https://pr-1.preview.acme.example"]) {
      const headers = await settingsFrom(t.environmentId, origin);
      expect(headers.get("access-control-allow-origin")).toBe(origin);
      expect(headers.get("vary")).toContain("Origin");
      expect(headers.get("access-control-expose-headers")?.toLowerCase()).toContain("x-request-id");

      const pre = await preflight(`/sdk/${t.environmentId}/scan/websiteUrl`, origin);
      expect(pre.status).toBe(204);
      expect(pre.headers.get("access-control-allow-origin")).toBe(origin);
      expect(pre.headers.get("access-control-allow-methods")).toBe("POST, OPTIONS");
      expect(pre.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
      expect(pre.headers.get("vary")).toContain("Origin");
    }
  });

  it("gives a foreign origin no allow-origin header, on answers and preflights (the browser blocks it)", async () => {
    const t = await tenant();
    await addOrigin(t, "https://app.acme.example");
    for (const origin of ["https://evil.example", "http://app.acme.example", "https://app.acme.example.evil.example", "null"]) {
      const headers = await settingsFrom(t.environmentId, origin);
      expect(headers.get("access-control-allow-origin"), origin).toBeNull();
      expect(headers.get("access-control-expose-headers")).toBeNull();
      expect(headers.get("vary")).toContain("Origin");

      const pre = await preflight(`/sdk/${t.environmentId}/settings`, origin, "GET");
      expect(pre.status).toBe(204);
      for (const h of ["access-control-allow-origin", "access-control-allow-methods", "access-control-allow-headers", "access-control-max-age"])
        expect(pre.headers.get(h), `${origin} ${h}`).toBeNull();
    }
  });

  it("keeps `*` for an environment without origins, for management paths and for requests without Origin", async () => {
    const t = await tenant();
    const open = await tenant();
    await addOrigin(t, "https://app.acme.example");
    expect((await settingsFrom(open.environmentId, "https://anything.example")).get("access-control-allow-origin")).toBe("*");
    expect((await preflight(`/sdk/${open.environmentId}/connect`, "https://anything.example")).headers.get("access-control-allow-origin")).toBe("*");
    // The management surface of the restricted environment: bearer API tokens, any origin.
    const mgmt = await fetch(`${app.baseUrl}/api/v0/environments/${t.environmentId}/origins`, {
      headers: { origin: "https://evil.example", authorization: `Bearer ${t.token}` },
    });
    expect(mgmt.status).toBe(200);
    expect(mgmt.headers.get("access-control-allow-origin")).toBe("*");
    // No Origin: not a browser's cross-origin call; nothing to add.
    const plain = await sdk.getEnvironmentSettingsRaw({ environmentId: t.environmentId });
    expect(plain.raw.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("one environment's origins never open another's", async () => {
    const a = await tenant();
    const b = await tenant();
    await addOrigin(a, "https://a.example");
    await addOrigin(b, "https://b.example");
    expect((await settingsFrom(b.environmentId, "https://a.example")).get("access-control-allow-origin")).toBeNull();
    expect((await settingsFrom(a.environmentId, "https://a.example")).get("access-control-allow-origin")).toBe("https://a.example");
  });

  it("an origin added or removed takes effect within the cache TTL", async () => {
    const t = await tenant();
    const first = await addOrigin(t, "https://first.example");
    // Cached now: only first.example is registered.
    expect((await settingsFrom(t.environmentId, "https://second.example")).get("access-control-allow-origin")).toBeNull();
    await addOrigin(t, "https://second.example");
    await sleep(TTL_MS + 50);
    expect((await settingsFrom(t.environmentId, "https://second.example")).get("access-control-allow-origin")).toBe("https://second.example");
    const del = await call(app.baseUrl, "DELETE", `/origins/${first.id}`, { token: t.token });
    expect(del.status, del.text).toBeLessThan(300);
    await sleep(TTL_MS + 50);
    expect((await settingsFrom(t.environmentId, "https://first.example")).get("access-control-allow-origin")).toBeNull();
  });

  it("reads an environment's origins once per TTL however many requests come at once", async () => {
    const t = await tenant();
    await addOrigin(t, "https://app.acme.example");
    // The real database, with its queries counted.
    let queries = 0;
    const db = new Proxy(app.db, {
      get: (target, key, receiver) => {
        const v = Reflect.get(target, key, receiver);
        return typeof v === "function" ? (...args: unknown[]) => (queries++, v.apply(target, args)) : v;
      },
    });
    const verdict = createSdkOriginCheck({ db, log: app.deps.log }, TTL_MS);
    const verdicts = await Promise.all(Array.from({ length: 50 }, (_, i) => verdict(t.environmentId, i % 2 ? "https://app.acme.example" : "https://evil.example")));
    expect(new Set(verdicts)).toEqual(new Set(["this", "none"]));
    expect(queries).toBe(1);
    await sleep(TTL_MS + 50);
    expect(await verdict(t.environmentId, "https://app.acme.example")).toBe("this");
    expect(queries).toBe(2);
    expect(await verdict(randomUUID(), "https://app.acme.example")).toBe("any");
  });
});
