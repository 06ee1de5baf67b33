import { afterAll, beforeAll, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

let app: TestApp;
let t: BootstrapResult;
beforeAll(async () => {
  app = await startTestApp({ rateLimitPerMinute: 5 });
  t = await app.bootstrap();
});
afterAll(() => app?.stop());

it("answers 429 with Retry-After past the per-token limit", async () => {
  const statuses: number[] = [];
  let last;
  for (let i = 0; i < 7; i++) {
    last = await call(app.baseUrl, "GET", `/environments/${t.environmentId}/tokens`, { token: t.token });
    statuses.push(last.status);
  }
  expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
  expect(statuses.slice(5)).toEqual([429, 429]);
  expect(Number(last!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  expect(last!.body).toMatchObject({ code: "rate_limited", error: expect.any(String) });
});
