import { execFile, spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Connection } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDatabase, connectDatabase } from "../../src/db/db.js";
import { embeddedPostgresUrl } from "../../src/infra/embedded-postgres.js";
import { findFreePort } from "../../src/infra/ports.js";
import { call } from "../support/http.js";
import { freeRuntimePorts, startRuntimeProcess, waitHealthy, type RuntimeProcess } from "./fixtures/runtime-process.js";
import { waitFor } from "../support/poll.js";

/**
 * `npm start` leaves <dataDir>/run.json for a second terminal: the CLI (`sigil bootstrap`, `sigil env`,
 * `sigil temporal`) and the dev scripts find the running service through it, with nothing exported, and
 * refuse a run.json whose process is gone instead of connecting to whatever holds its ports now.
 */

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const dirs: string[] = [];
let dataDir: string;
let rt: RuntimeProcess;

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A second terminal: nothing exported but the data dir (and whatever `extra` names). */
function terminalEnv(dir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(DATABASE_URL|REDIS_URL|TEMPORAL_|SIGIL_|PORT$|HOST$|PUBLIC_URL$|OIDC_PORT$)/.test(name)) delete env[name];
  }
  return { ...env, SIGIL_DATA_DIR: dir, ...extra };
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** `node --import tsx <script> args...` from the repository root, as `npx sigil` / `npm run` would run it. */
function run(script: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 90_000): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", script, ...args], { cwd: repoRoot, env, timeout: timeoutMs }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

const runFile = () => path.join(dataDir, "run.json");

beforeAll(async () => {
  dataDir = await tempDir("sigil-run-state-");
  rt = startRuntimeProcess(dataDir, await freeRuntimePorts());
  await waitHealthy(rt);
}, 150_000);

afterAll(async () => {
  if (rt && rt.child.exitCode === null && rt.child.signalCode === null) {
    rt.child.kill("SIGKILL");
    await rt.exited;
  }
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
}, 30_000);

describe("run.json, written by npm start", () => {
  it("names the running service's addresses, readable by its owner only", async () => {
    // Written once the service is ready, with the banner (/healthz may answer a moment earlier).
    await waitFor("run.json", async () => existsSync(runFile()), { until: (ok) => ok, timeoutMs: 30_000 });
    expect(statSync(runFile()).mode & 0o777).toBe(0o600);
    const state = JSON.parse(readFileSync(runFile(), "utf8"));
    expect(state).toMatchObject({
      version: 1,
      pid: rt.child.pid,
      dataDir,
      baseUrl: `http://127.0.0.1:${rt.ports.api}`,
      apiUrl: `http://127.0.0.1:${rt.ports.api}/api/v0`,
      grpcAddress: `127.0.0.1:${rt.ports.api}`,
      publicUrl: `http://localhost:${rt.ports.api}`,
      postgresUrl: embeddedPostgresUrl(dataDir, rt.ports.postgres),
      redisUrl: null,
      temporalAddress: `127.0.0.1:${rt.ports.temporal}`,
      temporalNamespace: "default",
      temporalUiUrl: `http://127.0.0.1:${rt.ports.temporal + 1000}`,
      mailboxDir: path.join(dataDir, "mailbox"),
      smsOutboxDir: path.join(dataDir, "sms-outbox"),
    });
    expect(Date.parse(state.startedAt)).toBeGreaterThan(Date.now() - 10 * 60_000);
    // Every address in it answers.
    expect((await fetch(`${state.baseUrl}/healthz`)).status).toBe(200);
    const db = connectDatabase(state.postgresUrl, { max: 1 });
    try {
      expect(await db.one("SELECT 1 AS ok")).toEqual({ ok: 1 });
    } finally {
      await closeDatabase(db);
    }
    const temporal = await Connection.connect({ address: state.temporalAddress });
    await temporal.close();
  });

  it("the start-up banner names the data dir, Postgres, Temporal, the store and the outboxes, and no secret", async () => {
    const banner = rt.plainLines.join("\n");
    const password = decodeURIComponent(new URL(embeddedPostgresUrl(dataDir, rt.ports.postgres)).password);
    expect(banner).toContain(`Data dir:     ${dataDir}`);
    expect(banner).toContain(`Postgres:     127.0.0.1:${rt.ports.postgres}, database sigil (embedded)`);
    expect(banner).toContain(`Temporal:     127.0.0.1:${rt.ports.temporal}, namespace default (dev server), UI http://127.0.0.1:${rt.ports.temporal + 1000}`);
    expect(banner).toContain("Store:        in-process (one process only; REDIS_URL unset)");
    expect(banner).toContain(`Mail:         dev mailbox ${path.join(dataDir, "mailbox")} (SIGIL_SMTP_URL unset)`);
    expect(banner).toContain(`SMS:          dev outbox ${path.join(dataDir, "sms-outbox")} (SIGIL_SMS_API_URL unset)`);
    expect(banner).not.toContain(password);
    expect(rt.logs.map((l) => JSON.stringify(l)).join("\n")).not.toContain(password);
  });

  it("`sigil bootstrap` in a second terminal writes into the running service, with nothing exported", async () => {
    const ran = await run("src/cli.ts", ["bootstrap", "--json"], terminalEnv(dataDir));
    expect(ran.code, ran.stderr).toBe(0);
    const t = JSON.parse(ran.stdout);
    const listed = await call(rt.baseUrl, "GET", `/environments/${t.environmentId}/users`, { token: t.token });
    expect(listed.status, listed.text).toBe(200);
  });

  it("`sigil env` prints the exports of the running service; `sigil temporal` runs the Temporal CLI against it", async () => {
    const env = await run("src/cli.ts", ["env"], terminalEnv(dataDir));
    expect(env.code, env.stderr).toBe(0);
    expect(env.stdout).toContain(`export SIGIL_URL='http://127.0.0.1:${rt.ports.api}'`);
    expect(env.stdout).toContain(`export TEMPORAL_ADDRESS='127.0.0.1:${rt.ports.temporal}'`);
    expect(env.stdout).toContain(`export DATABASE_URL='${embeddedPostgresUrl(dataDir, rt.ports.postgres)}'`);

    const temporal = await run("src/cli.ts", ["temporal", "operator", "namespace", "describe", "--namespace", "default", "-o", "json"], terminalEnv(dataDir));
    expect(temporal.code, temporal.stderr).toBe(0);
    expect(JSON.parse(temporal.stdout).namespaceInfo.name).toBe("default");
  });

  it("`sigil doctor` and the operator commands find the running service with nothing exported", async () => {
    const doctor = await run("src/cli.ts", ["doctor", "--json"], terminalEnv(dataDir));
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    const checks = Object.fromEntries(JSON.parse(doctor.stdout).checks.map((c: { name: string; status: string; detail: string }) => [c.name, c]));
    expect(JSON.parse(doctor.stdout).role).toBe("dev");
    expect(checks.postgres).toMatchObject({ status: "ok", detail: expect.stringContaining(`127.0.0.1:${rt.ports.postgres}`) });
    // The database password never reaches doctor's output (it gets pasted into tickets).
    expect(doctor.stdout).not.toContain(decodeURIComponent(new URL(embeddedPostgresUrl(dataDir, rt.ports.postgres)).password));
    expect(checks.temporal).toMatchObject({ status: "ok", detail: `127.0.0.1:${rt.ports.temporal}` });
    expect(checks["worker on sigil"]).toMatchObject({ status: "ok" });
    expect(checks.redis).toMatchObject({ status: "ok", detail: expect.stringContaining("in-process store") });

    const t = JSON.parse((await run("src/cli.ts", ["bootstrap", "--json"], terminalEnv(dataDir))).stdout);
    const shown = await run("src/cli.ts", ["environments", "show", t.environmentId, "--json"], terminalEnv(dataDir));
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: t.environmentId, organizationId: t.organizationId, tokens: 1 });
    // A change from the CLI says that the service's in-process caches see it only once they expire.
    const revoked = await run("src/cli.ts", ["tokens", "revoke", t.tokenId], terminalEnv(dataDir));
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toContain("keeps its caches in its own memory");
  });

  it("dev:device and dev:oidc find the service themselves", async () => {
    // The device's relay call reaches the service (which refuses the made-up session), not port 8080.
    const device = await run(
      "scripts/dev-device.ts",
      ["receive", "00000000-0000-4000-8000-000000000000"],
      terminalEnv(dataDir, { SIGIL_ENV: "00000000-0000-4000-8000-000000000000", SIGIL_JWT: "not-a-jwt", SIGIL_DEVICE_FILE: path.join(dataDir, "device.json") }),
    );
    expect(device.code).not.toBe(0);
    expect(device.stderr).toMatch(/\b401\b/);

    const oidcPort = await findFreePort();
    const oidc = spawn(process.execPath, ["--import", "tsx", "scripts/dev-oidc-provider.ts", "00000000-0000-4000-8000-000000000000"], {
      cwd: repoRoot,
      env: terminalEnv(dataDir, { OIDC_PORT: String(oidcPort) }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let out = "";
      oidc.stdout.on("data", (c: Buffer) => (out += c.toString()));
      await waitFor("dev:oidc's answer", async () => out, { until: (o) => o.includes("redirectUri"), timeoutMs: 60_000 });
      expect(out).toContain(`"redirectUri": "http://localhost:${rt.ports.api}/api/v0/sdk/00000000-0000-4000-8000-000000000000/providers/oidc/redirect"`);
    } finally {
      oidc.kill("SIGINT");
      await new Promise((r) => oidc.once("exit", r));
    }
  });

  it("a CLI of another data dir pointed at this service's Postgres port writes nothing into it", async () => {
    const other = await tempDir("sigil-run-state-other-");
    const db = connectDatabase(embeddedPostgresUrl(dataDir, rt.ports.postgres), { max: 1 });
    try {
      const before = (await db.one("SELECT count(*)::int AS n FROM organizations")).n;
      const ran = await run("src/cli.ts", ["bootstrap", "--json"], terminalEnv(other, { SIGIL_EMBEDDED_PG_PORT: String(rt.ports.postgres) }));
      expect(ran.code).not.toBe(0);
      expect(ran.stderr).toContain(`port 127.0.0.1:${rt.ports.postgres} is already in use`);
      expect((await db.one("SELECT count(*)::int AS n FROM organizations")).n).toBe(before);
    } finally {
      await closeDatabase(db);
    }
  });

  it("a run.json whose process is gone is named as such, not connected to", async () => {
    const stale = await tempDir("sigil-run-state-stale-");
    const state = JSON.parse(readFileSync(runFile(), "utf8"));
    await writeFile(path.join(stale, "run.json"), JSON.stringify({ ...state, dataDir: stale, pid: 4_000_000 + Math.floor(Math.random() * 100_000) }), { mode: 0o600 });
    const message = `no running Sigil for data dir ${stale}: start it with npm start`;
    for (const [script, args] of [
      ["src/cli.ts", ["env"]],
      ["src/cli.ts", ["temporal", "workflow", "list"]],
      ["scripts/dev-device.ts", ["receive", "00000000-0000-4000-8000-000000000000"]],
    ] as const) {
      const ran = await run(script, [...args], terminalEnv(stale, { SIGIL_ENV: "e", SIGIL_JWT: "j", SIGIL_DEVICE_FILE: path.join(stale, "device.json") }));
      expect(ran.code, `${script} ${args.join(" ")}`).not.toBe(0);
      expect(ran.stderr, `${script} ${args.join(" ")}`).toContain(message);
    }
    // A data dir nothing was started on says the same.
    const empty = await tempDir("sigil-run-state-empty-");
    const ran = await run("src/cli.ts", ["env"], terminalEnv(empty));
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toContain(`no running Sigil for data dir ${empty}: start it with npm start`);
  });

  it("is removed on a clean stop", async () => {
    rt.child.kill("SIGTERM");
    expect(await rt.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(runFile())).toBe(false);
  }, 30_000);
});
