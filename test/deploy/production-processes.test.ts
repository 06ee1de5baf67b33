import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { testEnv } from "../setup/env.js";
import { createTestDatabase } from "../setup/test-database.js";
import { call } from "../support/http.js";
import { waitFor } from "../support/poll.js";
import { Receiver } from "../support/receiver.js";
import { root } from "./deploy-tools.js";
import { dockerfileCommand, readDockerfile } from "./dockerfile.js";

/**
 * The processes the image starts, started here without a container engine: the Dockerfile's ENTRYPOINT with
 * compose.yaml's commands for migrate, api and worker, each a process of its own, with the image's ENV and
 * exactly the settings compose gives them (deploy/compose.env.example's and the compose file's keys). Only
 * what a container would differ in is replaced: the addresses of the servers (the test run's Postgres,
 * Redis and Temporal instead of compose's hosts), the listening host and ports, the data dir, and newly
 * made keys. A fresh database and task queue keep this file's processes apart from every other test.
 */

interface ComposeService {
  command: string[];
  environment: Record<string, string>;
  env_file?: string;
}

const dockerfile = readDockerfile();
const image = dockerfileCommand(dockerfile);
const compose = parse(readFileSync(path.join(root, "compose.yaml"), "utf8"), { merge: true }) as { services: Record<string, ComposeService> };
const service = (name: string) => compose.services[name]!;
/** KEY=value lines of the env file compose reads (its example, the template operators copy). */
const envFileKeys = (file: string) =>
  readFileSync(path.join(root, `${file}.example`), "utf8")
    .split("\n")
    .map((l) => /^([A-Z][A-Z0-9_]*)=/.exec(l.trim())?.[1])
    .filter((k): k is string => k !== undefined);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const key = (id: string) => `${id}:${randomBytes(32).toString("base64")}`;

interface Started {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

const started: Started[] = [];
let dataDir: string;
let dropDatabase: (() => Promise<void>) | undefined;
let env: Record<string, string>;
let apiUrl: string;
let workerUrl: string;

/** `node bin/sigil.js <command>` as the image runs it (ENTRYPOINT + command), with `env` only. */
function startProcess(command: string[], extra: Record<string, string> = {}): Started {
  const [program, ...args] = image.entrypoint;
  expect(program).toBe("node");
  const child = spawn(process.execPath, [...args, ...command], {
    cwd: root,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env, ...extra },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (c) => (output += c));
  child.stderr!.on("data", (c) => (output += c));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const s = { child, output: () => output, exit };
  started.push(s);
  return s;
}

async function ok(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2000) })).status === 200;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  const servers = testEnv();
  const database = await createTestDatabase(servers.databaseUrl);
  dropDatabase = database.drop;
  dataDir = mkdtempSync(path.join(tmpdir(), "sigil-production-"));
  const [apiPort, workerPort] = [await freePort(), await freePort()];
  apiUrl = `http://127.0.0.1:${apiPort}`;
  workerUrl = `http://127.0.0.1:${workerPort}`;

  // The settings compose gives the processes, with only what a container differs in replaced.
  const replaced: Record<string, string> = {
    DATABASE_URL: database.url,
    REDIS_URL: servers.redisUrl,
    TEMPORAL_ADDRESS: servers.temporalAddress,
    TEMPORAL_TASK_QUEUE: `production-processes-${randomUUID()}`,
    PUBLIC_URL: apiUrl,
    HOST: "127.0.0.1",
    PORT: String(apiPort),
    SIGIL_WORKER_PORT: String(workerPort),
    SIGIL_DATA_DIR: dataDir,
    SIGIL_SEALING_KEYS: key("k1"),
    SIGIL_BACKUP_SEALING_KEYS: key("b1"),
    POSTGRES_PASSWORD: "unused-here",
  };
  const api = service("api");
  const fromCompose = { ...Object.fromEntries(envFileKeys(api.env_file!).map((k) => [k, ""])), ...api.environment };
  env = { ...dockerfile.env, ...fromCompose };
  for (const name of Object.keys(env)) if (name in replaced) env[name] = replaced[name]!;
  // Nothing is made up here: every key comes from the Dockerfile, compose.yaml or its env file.
  expect(Object.keys(replaced).filter((k) => !(k in env))).toEqual([]);
  // The same settings for all three (one anchor in compose.yaml).
  expect(service("worker").environment).toEqual(api.environment);
  expect(service("migrate").environment).toEqual(api.environment);
}, 60_000);

afterAll(async () => {
  for (const s of started) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
  await dropDatabase?.().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the image's processes, started as the image starts them", () => {
  it("migrate once, then api and worker serve a request that needs the worker, and stop cleanly on SIGTERM", async () => {
    expect(service("migrate").command).toEqual(["migrate"]);
    expect(service("api").command).toEqual(image.cmd);
    expect(service("api").command).toEqual(["start", "api"]);
    expect(service("worker").command).toEqual(["start", "worker"]);
    // The processes must not migrate (the migrate service did): the api and worker only check the schema.
    expect(env.SIGIL_MIGRATE_ON_START).toBe("false");

    const migrate = startProcess(service("migrate").command);
    expect(await migrate.exit, migrate.output()).toBe(0);
    expect(migrate.output()).toMatch(/applied \d{3}_/);

    const api = startProcess(service("api").command);
    const worker = startProcess(service("worker").command);
    const alive = () => [api, worker].find((p) => p.child.exitCode !== null);
    const until = (what: string, check: () => Promise<boolean>) =>
      waitFor(what, async () => {
        const dead = alive();
        if (dead) throw new Error(`a process exited (${dead.child.exitCode}) before ${what}:\n${dead.output()}`);
        return check();
      }, { timeoutMs: 180_000, intervalMs: 500 });

    await until("the worker's /livez", () => ok(`${workerUrl}/livez`));
    // The api is ready once its dependencies answer and a worker polls its task queue.
    await until("the api's /readyz", () => ok(`${apiUrl}/readyz`));
    await until("the worker's /readyz", () => ok(`${workerUrl}/readyz`));
    expect(await ok(`${apiUrl}/livez`)).toBe(true);

    // A tenant, made by the same image's CLI with the same settings.
    const bootstrap = startProcess(["bootstrap", "--json", "--email", `production-${randomUUID()}@example.com`]);
    expect(await bootstrap.exit, bootstrap.output()).toBe(0);
    const tenant = JSON.parse(bootstrap.output().trim().split("\n").at(-1)!) as { token: string; environmentId: string };

    // A webhook's ping: queued by the api, relayed by the worker's outbox dispatcher, delivered by a workflow
    // on the worker.
    const receiver = await Receiver.start();
    try {
      const created = await call(apiUrl, "POST", `/environments/${tenant.environmentId}/webhooks`, {
        token: tenant.token,
        body: { url: receiver.url("/hooks"), events: ["user.created"] },
      });
      expect(created.status, created.text).toBe(201);
      const delivered = await until("the webhook ping's delivery", async () => receiver.received("/hooks").length > 0);
      expect(delivered).toBe(true);
      expect(JSON.parse(receiver.received("/hooks")[0]!.body)).toMatchObject({ eventName: "ping", webhookId: created.body.webhookId });
    } finally {
      await receiver.stop();
    }

    // SIGTERM, as an orchestrator stops a container: each drains and exits 0.
    api.child.kill("SIGTERM");
    worker.child.kill("SIGTERM");
    expect(await api.exit, api.output()).toBe(0);
    expect(await worker.exit, worker.output()).toBe(0);
    // The image's log format: one JSON object a line.
    const lines = api.output().split("\n").filter((l) => l.startsWith("{"));
    expect(lines.length).toBeGreaterThan(0);
  }, 300_000);
});
