import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { startSecondApi } from "../support/second-api.js";
import { signInAs } from "../support/sessions.js";

let app: TestApp;
let second: Awaited<ReturnType<typeof startSecondApi>>;
let t: BootstrapResult;

beforeAll(async () => {
  // The spec's SDK limit, per client address (every test here calls from 127.0.0.1).
  app = await startTestApp({ sdkRateLimits: { perAddressPer10s: 60, signInPerAddressPerMinute: 10 } });
  second = await startSecondApi(app);
  t = await app.bootstrap({ ownerEmail: `sdk-limits-${Date.now()}@example.com` });
});
afterAll(async () => {
  await second?.stop();
  await app?.stop();
});

describe("SDK rate limit: 60 calls per 10 s per client address, in the shared store", () => {
  it("counts public and signed-in calls together, across api processes, then answers 429 with Retry-After", async () => {
    const s = await signInAs(app, t.environmentId);
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const base = i % 2 ? second.baseUrl : app.baseUrl;
      const res = i % 3 ? await call(base, "GET", `/sdk/${t.environmentId}/session`, { token: s.jwt }) : await call(base, "GET", `/sdk/${t.environmentId}/.well-known/jwks`);
      statuses.push(res.status);
    }
    expect(statuses.every((x) => x === 200 || x === 204)).toBe(true);
    const over = await call(second.baseUrl, "GET", `/sdk/${t.environmentId}/.well-known/jwks`);
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ code: "rate_limited" });
    const retryAfter = Number(over.headers.get("retry-after"));
    expect(over.body.payload).toEqual({ scope: "address", limit: 60, window: "10s", setting: "SIGIL_SDK_RATE_LIMIT_PER_10S", retryAfterSeconds: retryAfter });
    expect(over.body.error).toBe(`too many SDK requests from this address: at most 60 per 10 s (SIGIL_SDK_RATE_LIMIT_PER_10S); retry in ${retryAfter} s`);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
    // The management surface counts per token, apart from the SDK's window.
    expect((await call(app.baseUrl, "GET", `/environments/${t.environmentId}/users`, { token: t.token })).status).toBe(200);
  });
});
