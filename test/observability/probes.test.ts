import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRuntime, type Runtime } from "../../src/runtime.js";
import { createApiHandler } from "../../src/server/app.js";
import { createDualServer } from "../../src/server/listen.js";
import { startTestRedis } from "../setup/redis-server.js";
import { testEnv } from "../setup/env.js";
import { cloneTemplateDatabase } from "../setup/test-database.js";
import { startTestApp, testConfig, type TestApp } from "../support/app.js";
import { waitFor } from "../support/poll.js";
import { seedWorkflowBundle } from "../support/workflow-bundle.js";
import { scrape } from "./scrape.js";

/**
 * Liveness and readiness as an orchestrator reads them, on a real process (startRuntime, api and worker as
 * in dev) whose Redis the test owns and stops: /readyz says which dependency is down, /livez stays 200 (restarting
 * the process would not bring Redis back), /healthz keeps its answer.
 */

let redis: Awaited<ReturnType<typeof startTestRedis>>;
let database: Awaited<ReturnType<typeof cloneTemplateDatabase>>;
let rt: Runtime;
let base: string;
let dataDir: string;

const get = async (path: string) => {
  const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
};

beforeAll(async () => {
  redis = await startTestRedis(execFileSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" }).trim(), () => undefined);
  database = await cloneTemplateDatabase(testEnv().databaseUrl, testEnv().templateDatabase);
  // Both roles in one process, as `npm start` (dev) runs them: its API serves the worker's metrics too.
  dataDir = await mkdtemp(path.join(tmpdir(), "sigil-probes-"));
  seedWorkflowBundle(dataDir);
  rt = await startRuntime(testConfig({ databaseUrl: database.url, redisUrl: redis.url, dataDir }), { api: true, worker: true });
  base = `http://127.0.0.1:${rt.port}`;
}, 120_000);
afterAll(async () => {
  await rt?.stop();
  await redis?.stop();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("/livez and /readyz", () => {
  it("with every dependency up: /livez 200 and /readyz 200, naming the checks it made", async () => {
    expect(await get("/livez")).toMatchObject({ status: 200, body: { status: "ok" } });
    const ready = await get("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: "ok", checks: { database: true, store: true, workflowEngine: true } });
    expect(ready.headers.get("cache-control")).toBe("no-store");
  });

  it("dev (api and worker in one process): the API's /metrics has the worker core's metrics too", async () => {
    const m = await waitFor("the worker core's metrics on the API port", async () => {
      const s = await scrape(`${base}/metrics`);
      return s.names.has("temporal_worker_task_slots_available") ? s : undefined;
    }, { timeoutMs: 30_000, intervalMs: 500 });
    expect(m.names).toContain("sigil_http_requests_total");
    expect(m.value("sigil_store_up", { store: "redis" })).toBe(1);
  });

  it("answer GET only (as /healthz does), which a CORS preflight tells", async () => {
    const post = await fetch(`${base}/readyz`, { method: "POST" });
    expect(post.status).toBe((await fetch(`${base}/healthz`, { method: "POST" })).status);
    expect(post.status).toBeGreaterThanOrEqual(400);
    const preflight = await fetch(`${base}/livez`, { method: "OPTIONS", headers: { origin: "https://ops.example", "access-control-request-method": "GET" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toBe("GET, OPTIONS");
  });

  it("Redis down: /readyz 503 naming the store, within its bound; /livez stays 200", async () => {
    await redis.stop();
    const started = Date.now();
    const ready = await get("/readyz");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: "unavailable", checks: { store: false, database: true, workflowEngine: true } });
    expect(await get("/livez")).toMatchObject({ status: 200, body: { status: "ok" } });
    // /healthz says the same as before this change: its checks, 503.
    expect((await get("/healthz")).status).toBe(503);
  });
});

describe("a process that is stopping", () => {
  let app: TestApp;
  let server: ReturnType<typeof createDualServer>;
  beforeAll(async () => {
    app = await startTestApp();
    server = createDualServer(createApiHandler(app.deps, [], { draining: () => true }));
    base = `http://127.0.0.1:${await server.listen(0, "127.0.0.1")}`;
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await app?.stop();
  });

  it("answers /readyz and /livez 503 (stopping), so that no new traffic comes and it is not restarted mid-drain", async () => {
    expect(await get("/readyz")).toMatchObject({ status: 503, body: { status: "stopping" } });
    expect(await get("/livez")).toMatchObject({ status: 503, body: { status: "stopping" } });
  });
});
