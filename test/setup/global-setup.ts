import { execFile, execFileSync, spawn } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { Connection } from "@temporalio/client";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { findFreePort } from "../../src/infra/ports.js";
import { startTemporalDevServer } from "../../src/infra/temporal-dev-server.js";
import { registerSearchAttributes } from "../../src/temporal/search-attributes.js";
import "./provided-context.js";
import { missingDeployTools } from "../deploy/deploy-tools.js";
import { schemathesisInstalled } from "../contract/schemathesis-tool.js";
import { startTestRedis } from "./redis-server.js";
import { enforceDeclaredErrors } from "./undeclared-errors.js";
import { createTemplateDatabase, createTestDatabase, dropRunDatabases, startTestPostgres } from "./test-database.js";

/**
 * Runs once per `vitest run`, in the main process, before any test file. Provides Postgres, Redis and
 * Temporal: the ones CI gives (DATABASE_URL, REDIS_URL, TEMPORAL_ADDRESS, exported by .ci/run), otherwise
 * local throwaway servers, so `npm test` works on a machine with nothing configured.
 *
 * Test files read the addresses with testEnv() from test/setup/env.ts (vitest `inject`; see there why not
 * process.env). Whatever is started here is stopped by the returned teardown. Meanwhile it builds the
 * workflow bundle that every test worker reads (test/support/workflow-bundle.ts).
 */

type Stop = () => Promise<void>;

const installRedisScript = fileURLToPath(new URL("../../scripts/install-redis.sh", import.meta.url));
const installDeployToolsScript = fileURLToPath(new URL("../../scripts/install-deploy-tools.sh", import.meta.url));
const installSchemathesisScript = fileURLToPath(new URL("../../scripts/install-schemathesis.sh", import.meta.url));
const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const workflowBundleModule = fileURLToPath(new URL("../support/workflow-bundle.ts", import.meta.url));
const execFileAsync = promisify(execFile);

const say = (line: string) => process.stderr.write(`[global-setup] ${line}\n`);
// Child server output is noise unless it fails; failures carry their recent output in the error.
const quiet = (_line: string) => undefined;

function onPath(command: string): string | undefined {
  try {
    return execFileSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The run's database (shared by the test files that use no app) and beside it the migrated template that each
 * test app's own database is cloned from (test/support/app.ts).
 */
async function provideDatabase(): Promise<{ url: string; template: string; stop: Stop }> {
  const serverUrl = process.env.DATABASE_URL;
  let run: { url: string; stop: Stop };
  if (serverUrl) {
    const db = await createTestDatabase(serverUrl);
    say(`database: created ${new URL(db.url).pathname.slice(1)} on DATABASE_URL's server`);
    const stop = async () => {
      try {
        await dropRunDatabases(db.url); // the template, and app databases of a file that died before stopping its app
      } finally {
        await db.drop();
      }
    };
    run = { url: db.url, stop };
  } else {
    run = await startTestPostgres(quiet);
    say(`database: embedded Postgres at ${new URL(run.url).host}`);
  }
  try {
    const template = await createTemplateDatabase(run.url);
    return { ...run, template };
  } catch (err) {
    await run.stop();
    throw err;
  }
}

async function provideRedis(): Promise<{ url: string; stop: Stop }> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, stop: async () => undefined };
  let redisServer = onPath("redis-server");
  if (!redisServer) {
    // A fresh machine: install it the way .ci/run does (Debian's package, as root), showing progress.
    say("redis-server is not installed: running scripts/install-redis.sh");
    try {
      execFileSync("bash", [installRedisScript], { stdio: ["ignore", "inherit", "inherit"] });
    } catch {
      throw new Error("tests need Redis: set REDIS_URL, or install redis-server (scripts/install-redis.sh, or apt-get install redis-server)");
    }
    redisServer = onPath("redis-server");
    if (!redisServer) throw new Error("scripts/install-redis.sh ran but redis-server is still not on PATH");
  }
  const redis = await startTestRedis(redisServer, quiet);
  say(`redis: started ${redis.url}`);
  return redis;
}

async function provideTemporal(): Promise<{ url: string; stop: Stop }> {
  if (process.env.TEMPORAL_ADDRESS) {
    // A server started elsewhere may not know Sigil's custom search attributes yet: register what it lacks.
    const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS });
    try {
      await registerSearchAttributes(connection, "default");
    } finally {
      await connection.close();
    }
    return { url: process.env.TEMPORAL_ADDRESS, stop: async () => undefined };
  }
  // Builds the CLI with Go when it is missing (progress goes to stderr), else fails naming how to install it.
  const temporal = await startTemporalDevServer({ port: await findFreePort(), headless: true, log: quiet });
  say(`temporal: dev server at ${temporal.address}`);
  return { url: temporal.address, stop: temporal.stop };
}

/**
 * Builds the workflow bundle into the cache every test worker reads (test/support/workflow-bundle.ts) before
 * any file starts, so that no two files build it at once. In a child process: bundling goes through the
 * Temporal worker runtime, whose signal handlers do not belong in vitest's own process.
 */
async function provideWorkflowBundle(): Promise<{ stop: Stop }> {
  const started = Date.now();
  const script = `const { testWorkflowBundle } = await import(${JSON.stringify(workflowBundleModule)}); await testWorkflowBundle();`;
  const { stderr } = await execFileAsync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: repoRoot, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 }).catch(
    (err: { stderr?: string; message: string }) => Promise.reject(new Error(`cannot build the workflow bundle: ${err.stderr || err.message}`)),
  );
  say(`workflow bundle: ${stderr.includes("workflow bundle built") ? "built" : "cached"} (${Date.now() - started} ms)`);
  return { stop: async () => undefined };
}

/** Runs one of scripts/install-*.sh, relaying its progress to stderr line by line as `<label>: ...`. */
async function runInstaller(script: string, label: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn("bash", [script], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    const tail: string[] = [];
    const relay = (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n").filter(Boolean)) {
        say(`${label}: ${line}`);
        tail.push(line);
        if (tail.length > 20) tail.shift();
      }
    };
    child.stdout.on("data", relay);
    child.stderr.on("data", relay);
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${path.relative(repoRoot, script)} failed (exit ${code}):\n${tail.join("\n")}`))));
  });
}

/**
 * The deployment checks' tools (test/deploy: helm, kubeconform and its schemas, hadolint), installed into
 * .tools by scripts/install-deploy-tools.sh when missing: about 3 minutes the first time on a new machine
 * (helm is built with Go), its progress on stderr; then they are found there.
 */
async function provideDeployTools(): Promise<{ stop: Stop }> {
  const missing = missingDeployTools();
  if (missing.length) {
    say(`deploy tools: installing ${missing.join(", ")} (scripts/install-deploy-tools.sh; about 3 minutes the first time)`);
    const started = Date.now();
    await runInstaller(installDeployToolsScript, "deploy tools");
    say(`deploy tools: installed (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  return { stop: async () => undefined };
}

/**
 * Schemathesis (test/contract/schemathesis.test.ts), installed into .tools/schemathesis by
 * scripts/install-schemathesis.sh when missing or at another version: about 20 s the first time (PyPI).
 */
async function provideSchemathesis(): Promise<{ stop: Stop }> {
  if (!schemathesisInstalled()) {
    say("schemathesis: installing (scripts/install-schemathesis.sh; about 20 s the first time)");
    await runInstaller(installSchemathesisScript, "schemathesis");
  }
  return { stop: async () => undefined };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const declaredErrors = enforceDeclaredErrors();
  // In parallel: the embedded Postgres and the Temporal dev server each take seconds to start.
  const results = await Promise.allSettled([provideDatabase(), provideRedis(), provideTemporal(), provideWorkflowBundle(), provideDeployTools(), provideSchemathesis()]);
  const started = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const teardown = async () => {
    const stops = await Promise.allSettled(started.map((s) => s.stop()));
    for (const s of stops) if (s.status === "rejected") say(`teardown: ${(s.reason as Error).message}`);
  };

  const failures = results.flatMap((r) => (r.status === "rejected" ? [(r.reason as Error).message ?? String(r.reason)] : []));
  if (failures.length) {
    await teardown();
    throw new Error(`test setup failed:\n- ${failures.join("\n- ")}`);
  }

  // All three fulfilled (checked above).
  const value = <T>(r: PromiseSettledResult<T>) => (r as PromiseFulfilledResult<T>).value;
  const [database, redis, temporal] = [value(results[0]), value(results[1]), value(results[2])];
  project.provide("TEST_DATABASE_URL", database.url);
  project.provide("TEST_TEMPLATE_DATABASE", database.template);
  project.provide("REDIS_URL", redis.url);
  project.provide("TEMPORAL_ADDRESS", temporal.url);
  return async () => {
    await teardown();
    declaredErrors.check();
  };
}
