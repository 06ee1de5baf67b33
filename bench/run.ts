/**
 * REST gateway benchmark on loopback. Starts the service as its own process (API + worker, real Postgres
 * and Redis from DATABASE_URL / REDIS_URL, Temporal from TEMPORAL_ADDRESS), creates a tenant and a user,
 * then drives each scenario with autocannon for a fixed time and records the results in
 * docs/benchmarks.md. Bounded: every scenario stops after BENCH_SECONDS (default 10).
 *
 *   DATABASE_URL=... REDIS_URL=... TEMPORAL_ADDRESS=... npm run bench
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { closeDatabase, connectDatabase } from "../src/db/db.js";
import { migrate } from "../src/db/migrate.js";
import { bootstrapTenant } from "../src/domain/tenancy/bootstrap.js";

const { DATABASE_URL, REDIS_URL, TEMPORAL_ADDRESS } = process.env;
if (!DATABASE_URL || !REDIS_URL || !TEMPORAL_ADDRESS) throw new Error("set DATABASE_URL, REDIS_URL and TEMPORAL_ADDRESS (real servers)");
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
const port = Number(process.env.BENCH_PORT ?? 18080);
const root = path.resolve(import.meta.dirname, "..");

const db = connectDatabase(DATABASE_URL);
await migrate(db);
const tenant = await bootstrapTenant(db);
await closeDatabase(db);

const server = spawn(process.execPath, [path.join(root, "bin/sigil.js"), "start", "dev"], {
  env: { ...process.env, PORT: String(port), LOG_LEVEL: "warn", SIGIL_RATE_LIMIT_PER_MINUTE: "0", SIGIL_DATA_DIR: path.join(os.tmpdir(), "sigil-bench") },
  stdio: ["ignore", "inherit", "inherit"],
});
const base = `http://127.0.0.1:${port}`;
try {
  const deadline = Date.now() + 120_000;
  while ((await fetch(`${base}/healthz`).then((r) => r.status, () => 0)) !== 200) {
    if (Date.now() > deadline) throw new Error("service did not become ready");
    await new Promise((r) => setTimeout(r, 500));
  }
  const headers = { authorization: `Bearer ${tenant.token}`, "content-type": "application/json" };
  const user = await fetch(`${base}/api/v0/environments/${tenant.environmentId}/users`, {
    method: "POST",
    headers,
    body: JSON.stringify({ email: `bench-${Date.now()}@example.com`, firstName: "Bench" }),
  }).then((r) => r.json() as Promise<{ user: { id: string } }>);

  const scenarios = [
    { name: "GET user by id", method: "GET" as const, path: `/api/v0/environments/${tenant.environmentId}/users/${user.user.id}` },
    { name: "POST create token", method: "POST" as const, path: `/api/v0/environments/${tenant.environmentId}/tokens`, body: JSON.stringify({ note: "bench" }) },
  ];
  const rows: string[] = [];
  for (const s of scenarios) {
    const r = await autocannon({ url: base + s.path, method: s.method, headers, body: s.body, connections, duration: seconds });
    const ok = r["2xx"];
    rows.push(
      `| ${s.name} | ${connections} | ${seconds} s | ${Math.round(r.requests.average)} | ${r.latency.p50} | ${r.latency.p99} | ${ok} | ${r.non2xx + r.errors} |`,
    );
    console.log(`${s.name}: ${Math.round(r.requests.average)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, 2xx ${ok}, other ${r.non2xx + r.errors}`);
  }
  const file = path.join(root, "docs/benchmarks.md");
  const section = [
    `## REST gateway, ${new Date().toISOString().slice(0, 10)}`,
    "",
    `Machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}. ` +
      "Service: one `sigil start dev` process (API + worker) with real Postgres and Redis on loopback, LOG_LEVEL=warn, " +
      "rate limit off; autocannon in a second process on the same 2 cores.",
    "",
    "| scenario | connections | duration | requests/s (avg) | p50 ms | p99 ms | 2xx | non-2xx/errors |",
    "|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
  const previous = (() => {
    try {
      return readFileSync(file, "utf8");
    } catch {
      return "# Benchmarks\n\nRecorded by `npm run bench` (bench/run.ts). Newest first.\n\n";
    }
  })();
  const [head, ...rest] = previous.split(/(?=^## )/m);
  writeFileSync(file, [head, section + "\n", ...rest].join(""));
  console.log(`recorded in ${file}`);
} finally {
  server.kill("SIGTERM");
}
