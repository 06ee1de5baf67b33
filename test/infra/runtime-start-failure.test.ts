import { createServer, type Server } from "node:net";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isPortFree } from "../../src/infra/ports.js";
import { freeRuntimePorts, startRuntimeProcess, temporalDevServerPid, type RuntimeProcess, type RuntimePorts } from "./fixtures/runtime-process.js";

/**
 * `npm start` when a part it needs does not come up: one paragraph on stderr that says what failed, why and
 * what to do, a non-zero exit, and nothing it started left running (the Temporal dev server starts side by
 * side with the embedded Postgres, so it is up, or nearly, when the Postgres start fails).
 */
const dirs: string[] = [];
const servers: Server[] = [];
const running: RuntimeProcess[] = [];

afterAll(async () => {
  for (const rt of running) if (rt.child.exitCode === null && rt.child.signalCode === null) rt.child.kill("SIGKILL");
  for (const s of servers) await new Promise((r) => s.close(r));
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
}, 30_000);

async function occupy(port: number): Promise<void> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
}

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "sigil-start-failure-"));
  dirs.push(dir);
  return dir;
}

/**
 * Runs the start to its end (the child must exit on its own), which must fail as a start failure should:
 * exit 1, no stack, and the one paragraph (returned, with the whole output) that says what failed.
 */
async function failedStart(dir: string, ports: RuntimePorts, env: Record<string, string> = {}) {
  const rt = startRuntimeProcess(dir, ports, { env });
  running.push(rt);
  const exit = await rt.exited;
  const stderr = rt.plainLines.join("\n");
  expect(exit.code, stderr).toBe(1);
  expectNoStack(stderr);
  const paragraph = stderr.split("\n").find((l) => l.startsWith("sigil: could not start."));
  expect(paragraph, stderr).toBeDefined();
  return { stderr, paragraph: paragraph! };
}

function expectNoStack(stderr: string): void {
  expect(stderr).not.toMatch(/^\s+at /m);
  expect(stderr).not.toContain("triggerUncaughtException");
  expect(stderr).not.toMatch(/^Error: /m);
}

async function expectNothingLeft(ports: RuntimePorts): Promise<void> {
  expect(temporalDevServerPid(ports.temporal), "a Temporal dev server left running").toBeUndefined();
  expect(await isPortFree(ports.temporal), "the Temporal port still taken").toBe(true);
}

describe("npm start when the embedded Postgres does not start", () => {
  it("its port taken by another process: a clear paragraph, exit 1, the Temporal dev server stopped", async () => {
    const ports = await freeRuntimePorts();
    await occupy(ports.postgres);
    const dir = await dataDir();
    const { paragraph } = await failedStart(dir, ports);

    expect(paragraph).toContain(`the embedded Postgres (cluster ${path.join(dir, "postgres")}, port ${ports.postgres}) did not start`);
    expect(paragraph).toContain(`port 127.0.0.1:${ports.postgres} is already in use`);
    expect(paragraph).toContain("SIGIL_EMBEDDED_PG_PORT");
    expect(paragraph).toContain("DATABASE_URL");
    await expectNothingLeft(ports);
  }, 120_000);

  it("its cluster cannot come up: the server's own reason in the paragraph, exit 1, nothing left running", async () => {
    const ports = await freeRuntimePorts();
    const dir = await dataDir();
    // A cluster dir marked initialised whose configuration postgres cannot read.
    const cluster = path.join(dir, "postgres");
    await mkdir(cluster, { recursive: true });
    await writeFile(path.join(cluster, "sigil-initialised"), "test\n");
    await writeFile(path.join(cluster, "PG_VERSION"), "18\n");
    await writeFile(path.join(cluster, "postgresql.conf"), "this is = not a setting\n");
    await chmod(path.join(cluster, "postgresql.conf"), 0o000);
    const { paragraph } = await failedStart(dir, ports);

    expect(paragraph).toContain(`the embedded Postgres (cluster ${cluster}, port ${ports.postgres}) did not start`);
    expect(paragraph).toMatch(/did not start: FATAL: .*postgresql\.conf/); // postgres's own words, without its log prefix
    expect(paragraph).toContain("DATABASE_URL");
    expect(await isPortFree(ports.postgres)).toBe(true);
    await expectNothingLeft(ports);
  }, 120_000);
});

describe("npm start when a configured server does not answer", () => {
  it("DATABASE_URL refuses connections: a clear paragraph naming DATABASE_URL, no ECONNREFUSED stack", async () => {
    const ports = await freeRuntimePorts();
    const { stderr, paragraph } = await failedStart(await dataDir(), ports, { DATABASE_URL: `postgres://u:secret@127.0.0.1:${ports.postgres}/x` });

    expect(stderr).not.toContain("secret");
    expect(paragraph).toContain(`DATABASE_URL (127.0.0.1:${ports.postgres})`);
    expect(paragraph).toContain("ECONNREFUSED");
    await expectNothingLeft(ports);
  }, 120_000);

  it("REDIS_URL refuses connections: a clear paragraph naming REDIS_URL", async () => {
    const ports = await freeRuntimePorts();
    const { paragraph } = await failedStart(await dataDir(), ports, { REDIS_URL: `redis://127.0.0.1:${ports.api}` });

    expect(paragraph).toContain(`REDIS_URL (127.0.0.1:${ports.api})`);
    await expectNothingLeft(ports);
  }, 120_000);

  it("TEMPORAL_ADDRESS does not answer: a clear paragraph naming TEMPORAL_ADDRESS, the embedded Postgres stopped", async () => {
    const ports = await freeRuntimePorts();
    const { paragraph } = await failedStart(await dataDir(), ports, { TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}` });

    expect(paragraph).toContain(`TEMPORAL_ADDRESS (127.0.0.1:${ports.temporal})`);
    expect(await isPortFree(ports.postgres), "the embedded Postgres left running").toBe(true);
  }, 120_000);

  it("the Temporal dev server's port taken: a clear paragraph naming SIGIL_EMBEDDED_TEMPORAL_PORT, the embedded Postgres stopped", async () => {
    const ports = await freeRuntimePorts();
    await occupy(ports.temporal);
    const dir = await dataDir();
    const { paragraph } = await failedStart(dir, ports);

    expect(paragraph).toContain("the embedded Temporal dev server (frontend gRPC) did not start");
    expect(paragraph).toContain(`port 127.0.0.1:${ports.temporal} is already in use`);
    expect(paragraph).toContain("SIGIL_EMBEDDED_TEMPORAL_PORT");
    expect(paragraph).toContain("TEMPORAL_ADDRESS");
    expect(await isPortFree(ports.postgres), "the embedded Postgres left running").toBe(true);
  }, 120_000);
});
