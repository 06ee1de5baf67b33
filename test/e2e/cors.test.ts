import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";

let app: TestApp;
let token: string;
let environmentId: string;

beforeAll(async () => {
  app = await startTestApp();
  const t = await app.bootstrap({ ownerEmail: `cors-${Date.now()}@example.com` });
  token = t.token;
  environmentId = t.environmentId;
});
afterAll(() => app?.stop());

const preflight = (path: string, method = "POST") =>
  fetch(`${app.baseUrl}${path}`, {
    method: "OPTIONS",
    headers: { origin: "https://app.example.com", "access-control-request-method": method, "access-control-request-headers": "authorization,content-type" },
  });

describe("browsers: CORS and OPTIONS", () => {
  it("answers a preflight on a REST path with the methods that path has", async () => {
    const res = await preflight(`/api/v0/environments/${environmentId}/allowlists`);
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")?.split(", ").sort()).toEqual(["GET", "OPTIONS", "POST"]);
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("content-type");
  });

  it("answers a preflight on an RPC path with Connect's methods", async () => {
    const res = await preflight("/sigil.allowlists.v0.AllowlistsService/ListAllowlists");
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-methods")).toBe("POST, GET, OPTIONS");
  });

  it("answers 404 to a preflight on a path that does not exist, without allowing it", async () => {
    const res = await preflight("/api/v0/nothing/here");
    expect(res.status).toBe(404);
    expect(res.headers.get("access-control-allow-methods")).toBeNull();
  });

  it("answers a plain OPTIONS with the Allow header and no body", async () => {
    const res = await fetch(`${app.baseUrl}/api/v0/exchangeRates`, { method: "OPTIONS" });
    expect(res.status).toBe(204);
    expect(res.headers.get("allow")).toBe("GET, OPTIONS");
    expect(await res.text()).toBe("");
  });

  it("lets the browser read answers (and errors) to requests that carry an Origin", async () => {
    const ok = await fetch(`${app.baseUrl}/api/v0/environments/${environmentId}/allowlists`, {
      headers: { origin: "https://app.example.com", authorization: `Bearer ${token}` },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe("*");
    expect(ok.headers.get("access-control-expose-headers")?.toLowerCase()).toContain("x-request-id");
    const denied = await fetch(`${app.baseUrl}/api/v0/environments/${environmentId}/allowlists`, { headers: { origin: "https://app.example.com" } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("adds no CORS headers to requests without an Origin (servers, curl)", async () => {
    const res = await fetch(`${app.baseUrl}/api/v0/environments/${environmentId}/allowlists`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});
