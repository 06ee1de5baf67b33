import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { TokensService } from "../../src/gen/sigil/tokens/v0/tokens_service_pb.js";
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
  // The body names the limit and the setting that changes it, in the payload and in words.
  const retryAfterSeconds = Number(last!.headers.get("retry-after"));
  expect(last!.body.payload).toEqual({ scope: "token", limit: 5, window: "1m", setting: "SIGIL_RATE_LIMIT_PER_MINUTE", retryAfterSeconds });
  expect(last!.body.error).toBe(`too many requests with this API token: at most 5 a minute (SIGIL_RATE_LIMIT_PER_MINUTE); retry in ${retryAfterSeconds} s`);
});

it("over gRPC: RESOURCE_EXHAUSTED with the same code and payload in the trailers", async () => {
  const limited = await app.bootstrap();
  const client = createClient(TokensService, createGrpcTransport({ baseUrl: app.baseUrl }));
  const headers = { authorization: `Bearer ${limited.token}` };
  for (let i = 0; i < 5; i++) await client.listTokens({ environmentId: limited.environmentId }, { headers });
  const err = await client.listTokens({ environmentId: limited.environmentId }, { headers }).then(
    () => undefined,
    (e: unknown) => ConnectError.from(e),
  );
  expect(err?.code).toBe(Code.ResourceExhausted);
  expect(err?.rawMessage).toMatch(/^too many requests with this API token: at most 5 a minute \(SIGIL_RATE_LIMIT_PER_MINUTE\); retry in \d+ s$/);
  expect(err?.metadata.get("sigil-error-code")).toBe("rate_limited");
  expect(JSON.parse(decodeURIComponent(err?.metadata.get("sigil-error-payload") ?? "null"))).toMatchObject({
    scope: "token",
    limit: 5,
    window: "1m",
    setting: "SIGIL_RATE_LIMIT_PER_MINUTE",
    retryAfterSeconds: Number(err?.metadata.get("retry-after")),
  });
});
