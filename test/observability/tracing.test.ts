import { randomUUID } from "node:crypto";
import path from "node:path";
import { ProxyTracerProvider, trace } from "@opentelemetry/api";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { closeDatabase, connectDatabase, pgp } from "../../src/db/db.js";
import { bootstrapTenant } from "../../src/domain/tenancy/bootstrap.js";
import { UsersService } from "../../src/gen/sigil/users/v0/users_service_pb.js";
import { activeTracing } from "../../src/infra/tracing.js";
import { startRuntime, type Runtime } from "../../src/runtime.js";
import { startTestApp, testConfig } from "../support/app.js";
import { call } from "../support/http.js";
import { startOtlpCollector, type ReceivedSpan } from "../support/otlp-collector.js";
import { waitFor } from "../support/poll.js";
import { testEnv } from "../setup/env.js";
import { cloneTemplateDatabase } from "../setup/test-database.js";

/** Where the runtime keeps its traced workflow bundle between runs (built once, then read). */
const dataDir = path.resolve(import.meta.dirname, "../../node_modules/.cache/sigil-traced");

let collector: Awaited<ReturnType<typeof startOtlpCollector>>;
beforeAll(async () => {
  collector = await startOtlpCollector();
});
afterAll(async () => {
  await collector?.stop();
});

describe("tracing is off unless an OTLP endpoint is set", () => {
  it("reads the endpoint from the standard variables", () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }).tracing).toEqual({ tracesUrl: "http://collector:4318/v1/traces" });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/custom" }).tracing).toEqual({ tracesUrl: "http://c:4318/custom" });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }).tracing).toBeUndefined();
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });

  it("registers no provider, patches nothing and exports nothing when unset", async () => {
    const app = await startTestApp();
    try {
      const t = await app.bootstrap({ ownerEmail: `untraced-${randomUUID()}@example.com` });
      const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/exports`, { token: t.token, body: { format: "csv", model: "users" } });
      expect(res.status, res.text).toBe(201);
      expect(activeTracing()).toBeUndefined();
      // The API's global provider is still its no-op proxy: nothing was registered.
      const provider = trace.getTracerProvider() as ProxyTracerProvider;
      expect(provider.getDelegate().constructor.name).toBe("NoopTracerProvider");
      expect(trace.getActiveSpan()).toBeUndefined();
      expect((pgp.pg.Client.prototype.query as { __wrapped?: boolean }).__wrapped).toBeUndefined();
      expect(collector.requests()).toBe(0);
    } finally {
      await app.stop();
    }
  });
});

describe("with OTEL_EXPORTER_OTLP_ENDPOINT set", () => {
  let runtime: Runtime | undefined;
  afterAll(async () => {
    await runtime?.stop();
  });

  it("exports one request's whole trace: REST, RPC, SQL, workflow start, workflow and activity", async () => {
    const database = await cloneTemplateDatabase(testEnv().databaseUrl, testEnv().templateDatabase);
    const db = connectDatabase(database.url, { max: 2 });
    try {
      const config = testConfig({ databaseUrl: database.url, dataDir, logLevel: "info", tracing: { tracesUrl: `${collector.url}/v1/traces` } });
      runtime = await startRuntime(config, { api: true, worker: true });
      const base = `http://127.0.0.1:${runtime.port}`;
      const t = await bootstrapTenant(db, { ownerEmail: `traced-${randomUUID()}@example.com` });
      // The runtime's log lines (stdout) during the request: its line carries the trace's id.
      const written: string[] = [];
      const write = process.stdout.write;
      process.stdout.write = ((chunk: string) => (written.push(String(chunk)), true)) as typeof process.stdout.write;
      const res = await call(base, "POST", `/environments/${t.environmentId}/exports`, { token: t.token, body: { format: "csv", model: "users" } }).finally(
        () => (process.stdout.write = write),
      );
      expect(res.status, res.text).toBe(201);
      const line = written.flatMap((w) => w.split("\n")).filter((l) => l.startsWith("{")).map((l) => JSON.parse(l)).find((l) => l.msg === "http");
      await waitFor(
        "the export to complete",
        async () => (await call(base, "GET", `/environments/${t.environmentId}/exports/${res.body.id}`, { token: t.token })).body,
        { until: (b) => b.status === "completed", timeoutMs: 30_000, intervalMs: 200 },
      );
      // A gRPC call (HTTP/2): its server span is named by its path, its RPC span is the child.
      const grpc = createClient(UsersService, createGrpcTransport({ baseUrl: base }));
      await grpc.getUser({ environmentId: t.environmentId, userId: randomUUID() }, { headers: { authorization: `Bearer ${t.token}` } }).catch(() => undefined);
      await runtime.stop(); // flushes the last spans
      runtime = undefined;

      const root = collector.spans.find((s) => s.name === "POST /api/v0/environments/{environment_id}/exports");
      expect(root, collector.spans.map((s) => s.name).join("\n")).toBeDefined();
      const spans = collector.spans.filter((s) => s.traceId === root!.traceId);
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      const parentOf = (s: ReceivedSpan) => byId.get(s.parentSpanId);
      const one = (pred: (s: ReceivedSpan) => boolean, what: string) => {
        const found = spans.filter(pred);
        expect(found.length, `${what} in ${spans.map((s) => `${s.name} <- ${parentOf(s)?.name ?? "-"}`).join("\n")}`).toBeGreaterThanOrEqual(1);
        return found[0]!;
      };
      const isUnder = (s: ReceivedSpan, ancestor: ReceivedSpan) => {
        for (let p = parentOf(s); p; p = parentOf(p)) if (p === ancestor) return true;
        return false;
      };

      expect(root!.kind).toBe(2); // SERVER
      expect(root!.parentSpanId).toBe("");
      expect(root!.serviceName).toBe("sigil");
      expect(root!.attributes["http.response.status_code"]).toBe(201);
      expect(line).toMatchObject({ method: "POST", route: "/api/v0/environments/{environment_id}/exports", status: 201, traceId: root!.traceId, spanId: root!.spanId });
      expect(res.headers.get("x-request-id")).toBe(line.requestId);
      const rpc = one((s) => s.name === "sigil.exports.v0.ExportsService/CreateExport", "the RPC span");
      expect(parentOf(rpc)).toBe(root);
      const sql = spans.filter((s) => s.name.startsWith("pg.query") && isUnder(s, rpc));
      expect(sql.length).toBeGreaterThan(0);
      // Statements keep their shape, never their values.
      for (const s of spans.filter((x) => x.name.startsWith("pg.query"))) expect(String(s.attributes["db.statement"])).not.toMatch(/'|@example\.com/);
      const start = one((s) => s.name === "StartWorkflow:exportUsersWorkflow", "the workflow start");
      expect(isUnder(start, rpc)).toBe(true);
      const run = one((s) => s.name === "RunWorkflow:exportUsersWorkflow", "the workflow's span");
      expect(parentOf(run)).toBe(start);
      const activity = one((s) => s.name.startsWith("RunActivity:"), "an activity's span");
      expect(isUnder(activity, run)).toBe(true);
      // The activity's own queries are in the same trace, under it.
      expect(spans.some((s) => s.name.startsWith("pg.query") && isUnder(s, activity))).toBe(true);

      const grpcServer = collector.spans.find((s) => s.name === "POST /sigil.users.v0.UsersService/GetUser");
      expect(grpcServer?.kind).toBe(2);
      const grpcCall = collector.spans.find((s) => s.name === "sigil.users.v0.UsersService/GetUser" && s.parentSpanId === grpcServer?.spanId);
      expect(grpcCall?.attributes["rpc.connect_rpc.error_code"]).toBe("NotFound");
      expect(grpcServer!.traceId).not.toBe(root!.traceId);
    } finally {
      await closeDatabase(db);
      await database.drop();
    }
  });
});
