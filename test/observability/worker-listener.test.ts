import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePort } from "../../src/infra/ports.js";
import { testEnv } from "../setup/env.js";
import { cloneTemplateDatabase } from "../setup/test-database.js";
import { waitFor } from "../support/poll.js";
import { seedWorkflowBundle } from "../support/workflow-bundle.js";
import { scrape } from "./scrape.js";

/**
 * `sigil start worker` (src/main.ts worker) as its own process, on the test servers: it serves /metrics,
 * /livez and /readyz on SIGIL_WORKER_PORT and nothing else, and its /metrics has the worker core's metrics.
 */

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
let child: ChildProcess;
let exited: Promise<number | null>;
let output = "";
let dataDir: string;
let database: Awaited<ReturnType<typeof cloneTemplateDatabase>>;
let base: string;

const key = () => `k1:${randomBytes(32).toString("base64")}`;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "sigil-worker-"));
  seedWorkflowBundle(dataDir);
  database = await cloneTemplateDatabase(testEnv().databaseUrl, testEnv().templateDatabase);
  const port = await findFreePort();
  base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: database.url,
    REDIS_URL: testEnv().redisUrl,
    TEMPORAL_ADDRESS: testEnv().temporalAddress,
    TEMPORAL_TASK_QUEUE: `worker-listener-${randomUUID()}`,
    SIGIL_SEALING_KEYS: key(),
    SIGIL_BACKUP_SEALING_KEYS: key(),
    SIGIL_DATA_DIR: dataDir,
    SIGIL_WORKER_PORT: String(port),
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
  };
  child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "worker"], { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (c: Buffer) => (output = (output + c.toString()).slice(-5000)));
  child.stderr!.on("data", (c: Buffer) => (output = (output + c.toString()).slice(-5000)));
  exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  const ready = await waitFor(
    "the worker's /readyz",
    async () => {
      if (child.exitCode !== null) return { status: -1 };
      const res = await fetch(`${base}/readyz`).catch(() => undefined);
      return { status: res?.status ?? 0 };
    },
    { until: (r) => r.status === 200 || r.status === -1, timeoutMs: 90_000, intervalMs: 500 },
  );
  if (ready.status !== 200) throw new Error(`the worker exited before it was ready:\n${output}`);
}, 120_000);
afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill("SIGTERM");
    await exited;
  }
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 30_000);

describe("a worker-only process's listener (SIGIL_WORKER_PORT)", () => {
  it("/livez and /readyz: ready once its worker polls, with the worker among its checks", async () => {
    expect((await fetch(`${base}/livez`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(await ready.json()).toEqual({ status: "ok", checks: { database: true, store: true, workflowEngine: true, worker: true } });
  });

  it("/metrics: the process's gauges and the Temporal worker core's metrics, in the Prometheus format", async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = await waitFor("the worker core's slots in /metrics", async () => {
      const s = await scrape(`${base}/metrics`);
      return s.names.has("temporal_worker_task_slots_available") ? s : undefined;
    }, { timeoutMs: 30_000, intervalMs: 500 });
    expect(m.value("sigil_db_pool_connections", { state: "total" })).toBeGreaterThan(0);
    expect(m.value("sigil_store_up", { store: "redis" })).toBe(1);
    for (const name of ["sigil_webhook_backlog_messages", "sigil_workflow_starts_total", "process_cpu_seconds_total", "temporal_num_pollers"]) {
      expect(m.names).toContain(name);
    }
  });

  it("serves nothing else: the API is not there", async () => {
    const res = await fetch(`${base}/api/v0/sdk/${randomUUID()}/settings`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: "not_found" });
  });

  it("stops on SIGTERM, exiting 0", async () => {
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 30_000);
});
