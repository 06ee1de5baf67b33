import { mkdtemp, rm } from "node:fs/promises";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDatabase, connectDatabase } from "../../src/db/db.js";
import { bootstrapTenant } from "../../src/domain/tenancy/bootstrap.js";
import { embeddedPostgresUrl } from "../../src/infra/embedded-postgres.js";
import { call } from "../support/http.js";
import { freeRuntimePorts, healthz, startRuntimeProcess, waitHealthy, type RuntimeProcess } from "./fixtures/runtime-process.js";
import { waitFor } from "../support/poll.js";

/** The process `npm start` runs, stopped by a signal: bounded (10 s, exit 0) even with a delivery backlog. */

const running: RuntimeProcess[] = [];
const dirs: string[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "sigil-shutdown-"));
  dirs.push(dir);
  return dir;
}

function start(...args: Parameters<typeof startRuntimeProcess>): RuntimeProcess {
  const rt = startRuntimeProcess(...args);
  running.push(rt);
  return rt;
}

/** Whether something accepts TCP connections on a loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

/** Resolves with the exit, or "still running" after ms. */
function exitWithin(rt: RuntimeProcess, ms: number) {
  return Promise.race([rt.exited, new Promise((r) => setTimeout(() => r("still running"), ms))]);
}

/** A loopback endpoint that accepts connections and never answers: every delivery hangs until its timeout. */
const blackHoleSockets = new Set<Socket>();
const blackHole = createServer((socket) => {
  blackHoleSockets.add(socket);
  socket.on("error", () => undefined);
});

beforeAll(async () => {
  await new Promise<void>((resolve) => blackHole.listen(0, "127.0.0.1", resolve));
});

afterAll(async () => {
  for (const rt of running) {
    if (rt.child.exitCode !== null || rt.child.signalCode !== null) continue;
    try {
      process.kill(-rt.child.pid!, "SIGKILL"); // detached ones lead a group of their own
    } catch {
      rt.child.kill("SIGKILL");
    }
    await rt.exited;
  }
  for (const s of blackHoleSockets) s.destroy();
  await new Promise((r) => blackHole.close(r));
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
}, 30_000);

describe("stopping the runtime", () => {
  it("SIGTERM to `npm start` stops the service gracefully, embedded children and all", async () => {
    const rt = start(await tempDir(), await freeRuntimePorts(), { npmStart: true });
    await waitHealthy(rt);
    rt.child.kill("SIGTERM");
    expect(await exitWithin(rt, 15_000)).toMatchObject({ code: 0 });
    // The service itself got the signal (npm's shell execs node, so npm's forwarding reaches it) ...
    expect(rt.logs.some((l) => l.msg === "shut down")).toBe(true);
    // ... and nothing it started outlives it.
    const stillUp = await fetch(`${rt.baseUrl}/healthz`).then(() => true, () => false);
    expect(stillUp).toBe(false);
    expect(await listening(rt.ports.postgres)).toBe(false);
    expect(await listening(rt.ports.temporal)).toBe(false);
  }, 60_000);

  it("Ctrl-C on `npm start` (SIGINT to its process group, and npm's forwarded copy) drains and exits 0", async () => {
    // Its own process group, as a terminal runs it: the terminal's SIGINT reaches npm, its shell and node,
    // and npm forwards its copy to node as well.
    const rt = start(await tempDir(), await freeRuntimePorts(), { npmStart: true, detached: true });
    await waitHealthy(rt);
    process.kill(-rt.child.pid!, "SIGINT");
    expect(await exitWithin(rt, 15_000), rt.output()).toMatchObject({ code: 0 });
    expect(rt.plainLines.filter((l) => /exiting without waiting/.test(l))).toEqual([]);
    expect(rt.logs.some((l) => l.msg === "shut down"), rt.output()).toBe(true);
    expect(await listening(rt.ports.postgres)).toBe(false);
    expect(await listening(rt.ports.temporal)).toBe(false);
  }, 60_000);

  it("a repeat of the signal within 2 s is the same stop: drained, exit 0", async () => {
    const rt = start(await tempDir(), await freeRuntimePorts());
    await waitHealthy(rt);
    rt.child.kill("SIGINT");
    await new Promise((r) => setTimeout(r, 20));
    rt.child.kill("SIGINT");
    expect(await exitWithin(rt, 15_000), rt.output()).toEqual({ code: 0, signal: null });
    expect(rt.logs.some((l) => l.msg === "shut down")).toBe(true);
    // The log line that starts the stop says how to force it.
    expect(rt.logs.find((l) => l.msg === "shutting down")).toMatchObject({ signal: "SIGINT", force: expect.stringMatching(/2 s/) });
  }, 60_000);

  it("a SIGTERM while it is still starting lets the start finish, then stops gracefully", async () => {
    const rt = start(await tempDir(), await freeRuntimePorts());
    // Its first log line comes from inside the start: the embedded children are on their way up.
    await waitFor("the first log line", async () => rt.logs.length, { until: (n) => n > 0, timeoutMs: 60_000 });
    rt.child.kill("SIGTERM");
    expect(await exitWithin(rt, 60_000)).toEqual({ code: 0, signal: null });
    expect(rt.logs.some((l) => l.msg === "shut down")).toBe(true);
    expect(await listening(rt.ports.postgres)).toBe(false);
    expect(await listening(rt.ports.temporal)).toBe(false);
  }, 90_000);

  it("exits 0 within 10 s of SIGTERM while webhook deliveries to a black hole are backed up", async () => {
    const dataDir = await tempDir();
    const rt = start(dataDir, await freeRuntimePorts(), {
      // Deliveries wait on the black hole for their whole timeout; the dispatcher polls often.
      env: { SIGIL_WEBHOOK_TIMEOUT_MS: "30000", SIGIL_WEBHOOK_DISPATCHER_POLL_MS: "200" },
    });
    await waitHealthy(rt);
    const db = connectDatabase(embeddedPostgresUrl(dataDir, rt.ports.postgres), { max: 1 });
    try {
      const t = await bootstrapTenant(db);
      const { port } = blackHole.address() as AddressInfo;
      for (let i = 0; i < 5; i++) {
        const created = await call(rt.baseUrl, "POST", `/environments/${t.environmentId}/webhooks`, {
          token: t.token,
          body: { url: `http://127.0.0.1:${port}/hook-${i}`, events: ["*"] },
        });
        expect(created.status, created.text).toBe(201);
      }
      for (let batch = 0; batch < 6; batch++) {
        const users = Array.from({ length: 50 }, (_, i) => ({ email: `backlog-${batch}-${i}@example.com` }));
        const bulk = await call(rt.baseUrl, "POST", `/environments/${t.environmentId}/users/bulk`, { token: t.token, body: users });
        expect(bulk.status).toBe(200);
      }
      // A backlog: pending messages, deliveries hanging on the black hole.
      await waitFor(
        "a delivery backlog",
        async () => (await db.one("SELECT count(*) AS n FROM webhook_messages WHERE status = 'pending'")).n as number,
        { until: (n) => n >= 300, timeoutMs: 30_000 },
      );
      await waitFor("deliveries hanging on the black hole", async () => blackHoleSockets.size, { until: (n) => n >= 3, timeoutMs: 30_000 });
    } finally {
      await closeDatabase(db);
    }

    rt.child.kill("SIGTERM");
    expect(await exitWithin(rt, 10_000)).toEqual({ code: 0, signal: null });
    expect(rt.logs.some((l) => l.msg === "shut down")).toBe(true);
    // The Temporal SDK logged through our JSON logger, level-filtered, from the first line on: its default
    // runtime (plain "[INFO] ..." lines, and signal handlers of its own) was never created first.
    expect(rt.plainLines.filter((l) => /^\S+ \[(TRACE|DEBUG|INFO|WARN|ERROR)\]/.test(l))).toEqual([]);
  }, 90_000);

  it("starts again on the same data dir after kill -9 of its whole process group", async () => {
    const dataDir = await tempDir();
    const ports = await freeRuntimePorts();
    // Its own process group, as a terminal or a service manager runs it: the embedded children are in it.
    const first = start(dataDir, ports, { detached: true });
    await waitHealthy(first);
    process.kill(-first.child.pid!, "SIGKILL");
    expect(await exitWithin(first, 10_000)).toEqual({ code: null, signal: "SIGKILL" });

    const second = start(dataDir, ports, { detached: true });
    await waitHealthy(second);
    expect((await healthz(second.baseUrl)).body).toMatchObject({
      status: "ok",
      checks: { database: true, store: true, workflowEngine: true, worker: true },
    });
    second.child.kill("SIGTERM");
    expect(await exitWithin(second, 10_000)).toEqual({ code: 0, signal: null });
  }, 90_000);
});
