import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { NativeConnection, Worker } from "@temporalio/worker";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { Configuration, SDKApi } from "@dynamic-labs/sdk-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_VERIFICATION_SETTINGS, DEFAULT_WEBHOOK_SETTINGS } from "../../src/config.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { newWebhookSecret, sealWebhookSecret } from "../../src/domain/webhooks/secret.js";
import { UsersService } from "../../src/gen/sigil/users/v0/users_service_pb.js";
import { createLogger } from "../../src/log.js";
import { freeLoopbackAddress } from "../../src/temporal/core-metrics.js";
import { installTemporalRuntimeLogger } from "../../src/temporal/runtime-logger.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { waitFor } from "../support/poll.js";
import { Receiver } from "../support/receiver.js";
import { refused } from "../support/sdk-client.js";
import { codeIn, startSmtpPeer } from "../e2e/support/code-peers.js";
import { metricNamesOf } from "./promql.js";
import { scrape, type Scrape } from "./scrape.js";

/**
 * /metrics through a real app: traffic of each kind (REST, RPC, sign-ins, a webhook delivery and the
 * workflows behind it) moves the counters it should, and every metric the sample Grafana dashboard
 * (deploy/grafana/sigil-dashboard.json) queries is in the scrape.
 */

let app: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let rx: Receiver;
let t: BootstrapResult;
let before: Scrape;
let after: Scrape;

const metricsUrl = () => `${app.baseUrl}/metrics`;
const sdk = () => new SDKApi(new Configuration({ basePath: `${app.baseUrl}/api/v0` }));

beforeAll(async () => {
  // The worker core's own metrics, as the worker role installs them (before anything of the SDK runs).
  installTemporalRuntimeLogger(createLogger("silent"), false, await freeLoopbackAddress());
  smtp = await startSmtpPeer();
  rx = await Receiver.start();
  app = await startTestApp({
    verifications: { ...DEFAULT_VERIFICATION_SETTINGS, smtpUrl: smtp.url },
    webhooks: { ...DEFAULT_WEBHOOK_SETTINGS, dispatcherPollMs: 300 },
  });
  t = await app.bootstrap({ ownerEmail: `metrics-${randomUUID()}@example.com` });
  before = await scrape(metricsUrl());
  await traffic();
  after = await scrape(metricsUrl());
}, 120_000);
afterAll(async () => {
  await app?.stop();
  await rx?.stop();
  await smtp?.close();
});

/** One of each: a REST call, an RPC, a sign-in and a failed one, and the webhook delivery (a workflow) the sign-up causes. */
async function traffic() {
  const rest = await call(app.baseUrl, "GET", `/environments/${t.environmentId}/users`, { token: t.token });
  expect(rest.status).toBe(200);
  const users = createClient(UsersService, createConnectTransport({ baseUrl: app.baseUrl, httpVersion: "1.1" }));
  await users.listUsers({ environmentId: t.environmentId }, { headers: { authorization: `Bearer ${t.token}` } });
  await expect(users.getUser({ environmentId: t.environmentId, userId: randomUUID() }, { headers: { authorization: `Bearer ${t.token}` } })).rejects.toThrow();

  // A webhook endpoint subscribed to sign-ups, so that the sign-up below is delivered.
  const webhookId = randomUUID();
  await app.db.none(`INSERT INTO webhooks (id, environment_id, url, event_names, secret_sealed, enabled_at) VALUES ($1, $2, $3, $4, $5, now())`, [
    webhookId,
    t.environmentId,
    rx.url("/hook"),
    ["user.created"],
    sealWebhookSecret(app.deps.sealer, webhookId, newWebhookSecret()),
  ]);

  const email = `user-${randomUUID()}@example.com`;
  const sent = smtp.countTo(email);
  const created = await sdk().createEmailVerification({ environmentId: t.environmentId, emailVerificationCreateRequest: { email } });
  const code = codeIn((await smtp.mailTo(email, sent)).parsed.text ?? "");
  const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
  const verify = (verificationToken: string) =>
    sdk().signInWithEmailVerification({ environmentId: t.environmentId, emailVerificationVerifyRequest: { verificationUUID: created.verificationUUID, verificationToken } });
  expect((await refused(verify(wrong))).body).toMatchObject({ code: "invalid_verification_code" });
  await verify(code);
  await waitFor("the sign-up's webhook delivered", () => rx.received("/hook").length > 0, { timeoutMs: 30_000 });
  // A workflow that fails, on a worker of its own in this process (one core runtime, one exporter): the
  // app's workflows do not fail on purpose.
  await failOneWorkflow();
  // The worker core publishes its metrics on its own schedule.
  await waitFor("the worker core's metrics", async () => (await scrape(metricsUrl())).names.has("temporal_workflow_failed_total"), {
    timeoutMs: 30_000,
    intervalMs: 500,
  });
}

async function failOneWorkflow() {
  const taskQueue = `metrics-failing-${randomUUID()}`;
  const connection = await NativeConnection.connect({ address: app.config.temporalAddress! });
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: fileURLToPath(new URL("./fixtures/failing-workflow.ts", import.meta.url)),
  });
  const running = worker.run();
  try {
    await expect(app.temporal.workflow.execute("failingWorkflow", { taskQueue, workflowId: `failing-${randomUUID()}` })).rejects.toThrow();
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
  }
}

const increase = (name: string, labels?: Record<string, string>) => after.value(name, labels) - before.value(name, labels);

describe("/metrics", () => {
  it("counts a REST request under its method, route template and status, once", () => {
    const route = "/api/v0/environments/{environment_id}/users";
    expect(increase("sigil_http_requests_total", { method: "GET", route, status: "200" })).toBe(1);
    expect(increase("sigil_http_request_duration_seconds_count", { method: "GET", route })).toBe(1);
    // The raw path (with its environment id) is never a label.
    expect(after.text).not.toContain(t.environmentId);
    // Counted by route, not again as an RPC.
    expect(increase("sigil_rpc_requests_total", { procedure: "sigil.users.v0.UsersService/ListUsers" })).toBe(1);
  });

  it("counts an RPC and its error by Connect code and spec code", () => {
    expect(increase("sigil_rpc_requests_total", { procedure: "sigil.users.v0.UsersService/GetUser" })).toBe(1);
    expect(increase("sigil_rpc_errors_total", { procedure: "sigil.users.v0.UsersService/GetUser", code: "not_found" })).toBe(1);
    expect(increase("sigil_rpc_duration_seconds_count", { procedure: "sigil.users.v0.UsersService/ListUsers" })).toBe(1);
  });

  it("counts sign-ins by method, a failure under its error code, and the session issued", () => {
    expect(increase("sigil_sign_ins_total", { method: "email" })).toBe(2);
    expect(increase("sigil_sign_in_failures_total", { method: "email" })).toBe(1);
    expect(increase("sigil_sign_in_failures_total", { method: "email", error_code: "invalid_verification_code" })).toBe(1);
    expect(increase("sigil_sessions_issued_total", { credential: "email", second_factor_pending: "false" })).toBe(1);
  });

  it("counts the webhook delivery, the workflow started for it, and the worker core's metrics", () => {
    expect(increase("sigil_webhook_delivery_attempts_total", { outcome: "delivered" })).toBe(1);
    expect(increase("sigil_workflow_starts_total", { workflow_type: "webhookEndpointWorkflow" })).toBeGreaterThanOrEqual(1);
    expect(after.names).toContain("sigil_webhook_backlog_messages");
    expect(after.names).toContain("temporal_worker_task_slots_available");
    expect(after.value("temporal_workflow_failed_total", { workflow_type: "failingWorkflow" })).toBe(1);
  });

  it("reads the pool, the store and the stale-work gauges at scrape, and default process metrics", () => {
    expect(after.value("sigil_db_pool_connections", { state: "total" })).toBeGreaterThan(0);
    expect(after.value("sigil_store_up", { store: "redis" })).toBe(1);
    expect(after.names).toContain("sigil_waas_rooms_stale");
    expect(after.names).toContain("process_cpu_seconds_total");
  });

  it("has every metric the sample Grafana dashboard queries", async () => {
    const dashboard = JSON.parse(await readFile(new URL("../../deploy/grafana/sigil-dashboard.json", import.meta.url), "utf8"));
    const exprs = panelsOf(dashboard).flatMap((p) => (p.targets ?? []).map((target: { expr?: string }) => ({ panel: p.title as string, expr: target.expr ?? "" })));
    expect(exprs.length).toBeGreaterThan(10);
    // A histogram's series (_bucket, _sum, _count) exist once it has observed something; its # TYPE line says it exists before.
    const exists = (name: string) => after.names.has(name) || after.names.has(name.replace(/_(bucket|sum|count)$/, ""));
    const missing = exprs.flatMap(({ panel, expr }) => metricNamesOf(expr).filter((n) => !exists(n)).map((n) => `${panel}: ${n}`));
    expect(missing).toEqual([]);
  });
});

describe("the dashboard check's reading of PromQL", () => {
  it("finds the metric names, not functions, labels, variables or durations", () => {
    expect(metricNamesOf('histogram_quantile(0.95, sum by (le, route) (rate(sigil_http_request_duration_seconds_bucket{route=~"/api.+"}[$__rate_interval])))')).toEqual([
      "sigil_http_request_duration_seconds_bucket",
    ]);
    expect(metricNamesOf("sum by (method) (rate(a_total[5m])) / ignoring(code) sum(rate(b_total[5m] offset 1h)) > bool 0.5")).toEqual(["a_total", "b_total"]);
  });
});

function panelsOf(dashboard: { panels?: any[] }): any[] {
  return (dashboard.panels ?? []).flatMap((p) => [p, ...panelsOf(p)]);
}
