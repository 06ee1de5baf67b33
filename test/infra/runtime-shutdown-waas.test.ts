import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { closeDatabase, connectDatabase } from "../../src/db/db.js";
import type { Flows } from "../../src/domain/deps.js";
import { signInWith } from "../../src/domain/sign-in/pipeline.js";
import type { PublicEnvironment } from "../../src/domain/tenancy/access.js";
import { bootstrapTenant } from "../../src/domain/tenancy/bootstrap.js";
import { buildDeps } from "../../src/deps.js";
import { embeddedPostgresUrl } from "../../src/infra/embedded-postgres.js";
import { createStore } from "../../src/store/store.js";
import { waitFor } from "../support/poll.js";
import { sdkFor } from "../support/sdk-client.js";
import { BENCH_SCRYPT_N, TestDevice, type RoomView } from "../support/waas-device.js";
import { freeRuntimePorts, postmasterPid, startRuntimeProcess, temporalDevServerPid, waitHealthy, type RuntimeProcess } from "./fixtures/runtime-process.js";

/**
 * SIGTERM to the process `npm start` runs while threshold-wallet operations are in flight (refresh rooms
 * being run by the wallet actors, backups): the API drains before the worker and the Temporal client go,
 * every request in flight is answered (done, or 503 "retry"), nothing crashes the process, and the embedded
 * Postgres stops with it.
 */

const running: RuntimeProcess[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const rt of running) {
    if (rt.child.exitCode !== null || rt.child.signalCode !== null) continue;
    rt.child.kill("SIGKILL");
    await rt.exited;
  }
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
}, 30_000);

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const refuse = () => Promise.reject(new Error("the test process starts no durable flows"));
const noFlows: Flows = { recoverWallets: refuse, startExport: refuse, startWebhookDelivery: refuse, wakeWebhookEndpoints: refuse, runWaasRoom: refuse, runWaasBackup: refuse, runWaasRecover: refuse };

/** What a request in flight at the signal got: an HTTP status, or the transport error (a cut connection). */
interface Answer {
  what: string;
  status?: number;
  code?: string;
  error?: string;
  at: number;
}

/** A service process with wallets made, and refresh rooms opened with their contributions ready. */
async function deployment(wallets: number, refreshes: number) {
  const dataDir = await mkdtemp(path.join(tmpdir(), "sigil-shutdown-waas-"));
  dirs.push(dataDir);
  const ports = await freeRuntimePorts();
  const rt = startRuntimeProcess(dataDir, ports, { env: { SIGIL_RATE_LIMIT_PER_MINUTE: "0", SIGIL_SDK_RATE_LIMIT_PER_10S: "0", SIGIL_SIGN_IN_RATE_LIMIT_PER_MINUTE: "0" } });
  running.push(rt);
  await waitHealthy(rt);

  // The test's own view of the deployment: the same database and (from the data dir) the same sealing keys.
  const databaseUrl = embeddedPostgresUrl(dataDir, ports.postgres);
  const config = loadConfig({ SIGIL_DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: "silent" });
  const db = connectDatabase(databaseUrl, { max: 2 });
  const store = await createStore(undefined);
  const deps = buildDeps({ config, db, store, flows: noFlows });
  const t = await bootstrapTenant(db);
  const relay = async (jwt: string, method: "GET" | "POST", route: string, body?: unknown) => {
    const r = await fetch(`${rt.baseUrl}/api/v0/sdk/${t.environmentId}/waas${route}`, {
      method,
      headers: { authorization: `Bearer ${jwt}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: r.status, body: (await r.json().catch(() => undefined)) as any };
  };
  const publicEnv: PublicEnvironment = { environmentId: t.environmentId, environmentName: "sandbox", projectId: t.projectId, organizationId: t.organizationId };
  const made = await Promise.all(
    Array.from({ length: wallets }, async () => {
      const s = await signInWith(deps, publicEnv, { kind: "email", email: `shutdown-${randomUUID()}@example.com` }, { ipAddress: "127.0.0.1", userAgent: "test", requestId: "" });
      const jwt = s.tokens.jwt;
      const sdk = sdkFor(rt.baseUrl, jwt);
      const device = new TestDevice("shutdown", BENCH_SCRYPT_N);
      const opened = await sdk.createWaasAccount({
        environmentId: t.environmentId,
        createWaasAccountRequest: { chain: "EVM" as never, clientKeygenIds: device.keygenIds(1), thresholdSignatureScheme: "TWO_OF_TWO" as never },
      });
      const room = (await relay(jwt, "GET", `/rooms/${opened.roomId}`)).body as RoomView;
      expect(room.status).toBe("done");
      await device.receive(room.result!.shareSet);
      return { jwt, sdk, device, walletId: opened.walletId! };
    }),
  );
  const rooms = await Promise.all(
    made.slice(0, refreshes).map(async (w) => {
      const opened = await w.sdk.refreshKeyShares({ environmentId: t.environmentId, walletId: w.walletId });
      const room = (await relay(w.jwt, "GET", `/rooms/${opened.roomId}`)).body as RoomView;
      return { w, roomId: opened.roomId, contribution: await w.device.sharesContribution(room) };
    }),
  );
  await closeDatabase(db);
  await store.close();

  const answers: Answer[] = [];
  const record = (what: string, p: Promise<{ status: number; body: any }>) =>
    p.then(
      (r) => answers.push({ what, status: r.status, code: r.body?.code, at: Date.now() }),
      (err) => answers.push({ what, error: String((err as Error).cause ?? err), at: Date.now() }),
    );
  const contribute = () => rooms.map((r) => record(`refresh ${r.roomId}`, relay(r.w.jwt, "POST", `/rooms/${r.roomId}/contribution`, { contribution: r.contribution })));
  const backup = () =>
    made.slice(refreshes).map((w) =>
      record(`backup ${w.walletId}`, relay(w.jwt, "POST", `/${w.walletId}/keyShares/backup`, { encryptedAccountCredentials: [`credential-${w.walletId}`], passwordEncrypted: true })),
    );
  return { rt, dataDir, ports, answers, contribute, backup, rooms, relay };
}

/** SIGTERM, then the process's exit and every answer; the checks common to both cases. */
async function stopWith(d: Awaited<ReturnType<typeof deployment>>, inFlight: Promise<unknown>[]) {
  const signalledAt = Date.now();
  const postmaster = postmasterPid(d.dataDir);
  d.rt.child.kill("SIGTERM");
  const exit = await Promise.race([d.rt.exited, new Promise((r) => setTimeout(() => r("still running"), 15_000))]);
  await Promise.all(inFlight);
  const report = `${JSON.stringify(d.answers, null, 1)}\n${d.rt.output()}`;
  expect(exit, report).toEqual({ code: 0, signal: null });
  expect(d.rt.plainLines.filter((l) => /Channel has been shut down|Uncaught|unhandled|ERR_/i.test(l)), report).toEqual([]);
  expect(d.rt.logs.some((l) => l.msg === "shut down"), report).toBe(true);
  // Every request in flight got an answer (never a cut connection), and at least one came after the signal.
  expect(d.answers.length).toBe(inFlight.length);
  expect(d.answers.some((a) => a.at > signalledAt), report).toBe(true);
  expect(await listening(d.ports.postgres)).toBe(false);
  expect(await listening(d.ports.temporal)).toBe(false);
  expect(alive(postmaster)).toBe(false);
  return report;
}

describe("SIGTERM with threshold-wallet operations in flight", () => {
  it("drains them (answered, or 503), exits 0 without an uncaught error, and stops the embedded Postgres", async () => {
    const d = await deployment(4, 3);
    const inFlight = [...d.contribute(), ...d.backup()];
    // The requests reach the server and their Updates go to the actors; then the signal.
    await new Promise((r) => setTimeout(r, 150));
    const report = await stopWith(d, inFlight);
    for (const a of d.answers) expect(a.status === 200 || a.status === 503, `${a.what}: ${JSON.stringify(a)}\n${report}`).toBe(true);
  }, 180_000);

  it("answers 503 to requests still waiting on a paused engine when the drain runs out, exits 0, and the next start runs their rooms", async () => {
    const d = await deployment(2, 2);
    const temporal = temporalDevServerPid(d.ports.temporal)!;
    // Paused before the engine monitor can notice: the runs' calls go out and wait.
    process.kill(temporal, "SIGSTOP");
    try {
      const inFlight = d.contribute();
      await new Promise((r) => setTimeout(r, 300));
      const report = await stopWith(d, inFlight);
      for (const a of d.answers) expect(a, `${a.what}\n${report}`).toMatchObject({ status: 503, code: "workflow_engine_unavailable" });
    } finally {
      try {
        process.kill(temporal, "SIGCONT");
      } catch {
        // gone with the service
      }
    }
    // Those rooms took their contributions and never reached the actors: the next start runs them.
    const again = startRuntimeProcess(d.dataDir, d.ports, { env: { SIGIL_RECONCILE_STALE_MS: "0" } });
    running.push(again);
    await waitHealthy(again);
    for (const r of d.rooms) {
      const done = await waitFor("the room run by the next start", async () => (await d.relay(r.w.jwt, "GET", `/rooms/${r.roomId}`)).body as RoomView, {
        until: (v) => v.status === "done" || v.status === "failed",
        timeoutMs: 60_000,
        intervalMs: 500,
      });
      expect(done.status, JSON.stringify(done)).toBe("done");
    }
  }, 180_000);
});
