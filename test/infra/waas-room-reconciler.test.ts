import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { closeDatabase, connectDatabase, type Database } from "../../src/db/db.js";
import type { Flows } from "../../src/domain/deps.js";
import { signInWith } from "../../src/domain/sign-in/pipeline.js";
import type { PublicEnvironment } from "../../src/domain/tenancy/access.js";
import { bootstrapTenant, type BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { buildDeps } from "../../src/deps.js";
import { embeddedPostgresUrl } from "../../src/infra/embedded-postgres.js";
import { createStore } from "../../src/store/store.js";
import { waitFor } from "../support/poll.js";
import { sdkFor } from "../support/sdk-client.js";
import { BENCH_SCRYPT_N, TestDevice, type RoomView } from "../support/waas-device.js";
import { freeRuntimePorts, healthz, startRuntimeProcess, temporalDevServerPid, waitHealthy, type RuntimeProcess } from "./fixtures/runtime-process.js";

/**
 * A room whose run never reached Temporal: the device's contribution is saved, then the call to the wallet's
 * actor fails because the Temporal server is paused (SIGSTOP of the embedded dev server, the process `npm
 * start` runs). The device got 503; once the engine is back the room still reaches `done` (the reconciler
 * runs it again, idempotently), the same contribution posted again answers the outcome instead of 409, and
 * while the room waits it shows in /metrics.
 */

let dataDir: string;
let rt: RuntimeProcess;
let db: Database;
let t: BootstrapResult;
let temporalPid: number;
let close: () => Promise<void>;
let newUser: () => Promise<string>;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "sigil-room-reconciler-"));
  const ports = await freeRuntimePorts();
  rt = startRuntimeProcess(dataDir, ports, {
    env: {
      SIGIL_RATE_LIMIT_PER_MINUTE: "0",
      SIGIL_SDK_RATE_LIMIT_PER_10S: "0",
      SIGIL_SIGN_IN_RATE_LIMIT_PER_MINUTE: "0",
      // A pass a second; a room counts as stale 2 s after its contribution.
      SIGIL_RECONCILE_INTERVAL_MS: "1000",
      SIGIL_RECONCILE_STALE_MS: "2000",
    },
  });
  await waitHealthy(rt);
  temporalPid = temporalDevServerPid(ports.temporal)!;
  expect(temporalPid).toBeGreaterThan(0);
  // The test's own view of the deployment: the same database and (from the data dir) the same sealing keys.
  const databaseUrl = embeddedPostgresUrl(dataDir, ports.postgres);
  const config = loadConfig({ SIGIL_DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: "silent" });
  db = connectDatabase(databaseUrl, { max: 2 });
  const store = await createStore(undefined);
  const refuse = () => Promise.reject(new Error("the test process starts no durable flows"));
  const flows: Flows = { recoverWallets: refuse, startExport: refuse, startWebhookDelivery: refuse, wakeWebhookEndpoints: refuse, runWaasRoom: refuse, runWaasBackup: refuse, runWaasRecover: refuse };
  const deps = buildDeps({ config, db, store, flows });
  t = await bootstrapTenant(db);
  const publicEnv: PublicEnvironment = { environmentId: t.environmentId, environmentName: "sandbox", projectId: t.projectId, organizationId: t.organizationId };
  newUser = async () =>
    (await signInWith(deps, publicEnv, { kind: "email", email: `reconciler-${randomUUID()}@example.com` }, { ipAddress: "127.0.0.1", userAgent: "test", requestId: "" })).tokens
      .jwt;
  close = async () => {
    await store.close();
    await closeDatabase(db);
  };
}, 120_000);

afterAll(async () => {
  if (temporalPid) process.kill(temporalPid, "SIGCONT");
  await close?.();
  if (rt && rt.child.exitCode === null && rt.child.signalCode === null) {
    rt.child.kill("SIGTERM");
    await Promise.race([rt.exited, new Promise((r) => setTimeout(r, 15_000))]);
    if (rt.child.exitCode === null) rt.child.kill("SIGKILL");
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

async function relay(jwt: string, method: "GET" | "POST", route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${rt.baseUrl}/api/v0/sdk/${t.environmentId}/waas${route}`, {
    method,
    headers: { authorization: `Bearer ${jwt}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: r.status, body: await r.json().catch(() => undefined) };
}

/** A wallet with its device, and a refresh room opened on it with the device's contribution ready. */
async function refreshRoom() {
  const jwt = await newUser();
  const sdk = sdkFor(rt.baseUrl, jwt);
  const device = new TestDevice("reconciler", BENCH_SCRYPT_N);
  const created = await sdk.createWaasAccount({
    environmentId: t.environmentId,
    createWaasAccountRequest: { chain: "EVM" as never, clientKeygenIds: device.keygenIds(1), thresholdSignatureScheme: "TWO_OF_TWO" as never },
  });
  const made = (await relay(jwt, "GET", `/rooms/${created.roomId}`)).body as RoomView;
  expect(made.status).toBe("done");
  await device.receive(made.result!.shareSet);
  const opened = await sdk.refreshKeyShares({ environmentId: t.environmentId, walletId: created.walletId! });
  const room = (await relay(jwt, "GET", `/rooms/${opened.roomId}`)).body as RoomView;
  return { jwt, device, roomId: opened.roomId, contribution: await device.sharesContribution(room) };
}

async function staleRooms(): Promise<number> {
  const r = await fetch(`${rt.baseUrl}/metrics`);
  if (r.status !== 200) return -r.status;
  const line = (await r.text()).split("\n").find((l) => l.startsWith("sigil_waas_rooms_stale "));
  return line ? Number(line.split(" ")[1]) : -1;
}

describe("a room whose run never reached Temporal", () => {
  it("is run once the engine is back, answers a retried contribution, and shows as stale meanwhile", async () => {
    const a = await refreshRoom();
    const b = await refreshRoom();

    process.kill(temporalPid, "SIGSTOP");
    try {
      await waitFor("the engine known down", () => healthz(rt.baseUrl), { until: (h) => h.body?.checks?.workflowEngine === false, timeoutMs: 20_000 });
      // The contributions are taken, the runs cannot reach the actor: 503, retry later.
      for (const r of [a, b]) {
        const posted = await relay(r.jwt, "POST", `/rooms/${r.roomId}/contribution`, { contribution: r.contribution });
        expect(posted.status, JSON.stringify(posted.body)).toBe(503);
        expect((await relay(r.jwt, "GET", `/rooms/${r.roomId}`)).body.status).toBe("contributed");
      }
      // Another part posted to a room that took one is still refused, and changes nothing.
      const other = await relay(a.jwt, "POST", `/rooms/${a.roomId}/contribution`, { contribution: b.contribution });
      expect(other.status, JSON.stringify(other.body)).toBe(409);
      expect(other.body.code).toBe("room_closed");
      await waitFor("the rooms counted as stale", staleRooms, { until: (n) => n >= 2, timeoutMs: 20_000 });
    } finally {
      process.kill(temporalPid, "SIGCONT");
    }

    // The device retries its post once the engine answers: the outcome, not 409 room_closed.
    const retried = await waitFor(
      "a retried contribution answered",
      () => relay(b.jwt, "POST", `/rooms/${b.roomId}/contribution`, { contribution: b.contribution }),
      { until: (r) => r.status !== 503, timeoutMs: 60_000, intervalMs: 1_000 },
    );
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.status).toBe("done");

    // The device that never retried: the reconciler ran its room; its new shares are there to take.
    const done = await waitFor("room a finished", async () => (await relay(a.jwt, "GET", `/rooms/${a.roomId}`)).body as RoomView, {
      until: (r) => r.status === "done" || r.status === "failed",
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    expect(done.status, JSON.stringify(done)).toBe("done");
    const next = Object.assign(Object.create(TestDevice.prototype) as TestDevice, a.device);
    await next.receive(done.result!.shareSet);
    await waitFor("no stale room left", staleRooms, { until: (n) => n === 0, timeoutMs: 20_000 });
  }, 240_000);
});
