/**
 * `npm run bench:startup`: how long `npm start` (dev mode: embedded Postgres, Temporal dev server, the API
 * and the worker in one process) takes until /healthz answers 200, on a fresh data dir and then again on the
 * same, existing one (BENCH_STARTUP_RUNS starts in all, default 3). Needs the Temporal CLI (npm run
 * tools:temporal). Ports of its own (BENCH_PORT, +1 Postgres, +2 Temporal), so it runs beside a dev setup;
 * BENCH_STARTUP_ROOT measures another checkout of Sigil (a "before") with the same procedure.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { root } from "./support/env.js";

const port = Number(process.env.BENCH_PORT ?? 18380);
const runs = Number(process.env.BENCH_STARTUP_RUNS ?? 3);
const checkout = process.env.BENCH_STARTUP_ROOT ?? root;
const dataDir = mkdtempSync(path.join(os.tmpdir(), "sigil-startup-"));

async function startOnce(): Promise<number> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SIGIL_DATA_DIR: dataDir,
    PORT: String(port),
    SIGIL_EMBEDDED_PG_PORT: String(port + 1),
    SIGIL_EMBEDDED_TEMPORAL_PORT: String(port + 2),
    LOG_LEVEL: "warn",
  };
  // Embedded everything, as `npm start` on a laptop.
  for (const k of ["DATABASE_URL", "REDIS_URL", "TEMPORAL_ADDRESS"]) delete env[k];
  const started = performance.now();
  const child = spawn("npm", ["start"], { cwd: checkout, env, stdio: ["ignore", "ignore", "inherit"], detached: true });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
      const status = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status, () => 0);
      if (status === 200) return (performance.now() - started) / 1000;
      if (performance.now() - started > 180_000) throw new Error("not healthy after 180 s");
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    process.kill(-child.pid!, "SIGTERM");
    const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 15_000);
    await exited;
    clearTimeout(timer);
  }
}

try {
  console.log(`checkout ${checkout}, data dir ${dataDir}, ${os.cpus().length} cores, Node ${process.version}`);
  console.log("| start | data dir | seconds to healthy |\n|---|---|---|");
  for (let i = 0; i < runs; i++) console.log(`| ${i + 1} | ${i === 0 ? "fresh" : "existing"} | ${(await startOnce()).toFixed(1)} |`);
} finally {
  // A stopped child may still be flushing into it: retried.
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
}
