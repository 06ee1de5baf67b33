/**
 * User list benchmark on loopback: seeds 100,000 users (with an e-mail credential each and a wallet for
 * every tenth) in one environment with SQL, starts the service as its own process (API + worker; real
 * Postgres, Redis and Temporal from DATABASE_URL / REDIS_URL / TEMPORAL_ADDRESS), then drives GET
 * /environments/{id}/users (100 per page) with autocannon: the first page, a deep page and a filtered
 * query. Prints req/s and p50/p99 latency per scenario, and the query plans (EXPLAIN ANALYZE) of the page
 * statement (children read once per page by `user_id = ANY (page ids)`) and of the exact count. Bounded:
 * every scenario stops after BENCH_SECONDS (default 10).
 *
 *   DATABASE_URL=... REDIS_URL=... TEMPORAL_ADDRESS=... npx tsx bench/users-list.ts
 */
import { spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { userListSql, userListStatement, type UserListQuery } from "../src/db/repositories/user-aggregate.js";
import { EXACT_UP_TO } from "../src/domain/users/list-count.js";
import { NODE_FLAGS } from "./support/processes.js";
import { seedTenant } from "./support/seed.js";
import { waitFor } from "../test/support/poll.js";

const { DATABASE_URL, REDIS_URL, TEMPORAL_ADDRESS } = process.env;
if (!DATABASE_URL || !REDIS_URL || !TEMPORAL_ADDRESS) throw new Error("set DATABASE_URL, REDIS_URL and TEMPORAL_ADDRESS (real servers)");
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const port = Number(process.env.BENCH_PORT ?? 18081);
const USERS = Number(process.env.BENCH_USERS ?? 100_000);
const root = path.resolve(import.meta.dirname, "..");

const seeded = await seedTenant(USERS);
const { db, environmentId: env } = seeded;

const base = `http://127.0.0.1:${port}`;
const list = `/api/v0/environments/${env}/users`;
const scenarios: { name: string; query: string; plan: UserListQuery }[] = [
  { name: "first page (100, createdAt desc)", query: "limit=100", plan: { orderBy: { column: "createdAt", direction: "desc" }, offset: 0, limit: 100 } },
  {
    name: "deep page (offset 50,000)",
    query: "limit=100&offset=50000",
    plan: { orderBy: { column: "createdAt", direction: "desc" }, offset: 50_000, limit: 100 },
  },
  {
    name: "filtered (email prefix 'user1234', 11 matches)",
    query: "limit=100&filter.filterColumn=email&filter.filterValue=user1234",
    plan: { filter: { column: "email", value: "user1234" }, orderBy: { column: "createdAt", direction: "desc" }, offset: 0, limit: 100 },
  },
  {
    name: "filtered (all columns, 'first12')",
    query: "limit=100&filter.filterColumn=all&filter.filterValue=first12",
    plan: { filter: { column: "all", value: "first12" }, orderBy: { column: "createdAt", direction: "desc" }, offset: 0, limit: 100 },
  },
];

console.log("\nquery plans (EXPLAIN ANALYZE of the whole page statement, with its bounded count, and of the exact count):");
for (const s of scenarios) {
  const statement = userListStatement(env, s.plan, EXACT_UP_TO);
  const sql = userListSql(env, s.plan);
  for (const [what, text, params] of [
    ["page statement", statement.text, statement.params],
    ["exact count (kept for a few seconds when above the bound)", sql.count, sql.countParams],
  ] as const) {
    const rows = await db.any(`EXPLAIN (ANALYZE, COSTS OFF) ${text}`, params as unknown[]);
    console.log(`\n-- ${s.name}: ${what}\n${rows.map((r) => r["QUERY PLAN"]).join("\n")}`);
  }
}

const server = spawn(process.execPath, [...NODE_FLAGS, path.join(root, "bin/sigil.js"), "start", "dev"], {
  env: { ...process.env, PORT: String(port), LOG_LEVEL: "warn", SIGIL_RATE_LIMIT_PER_MINUTE: "0", SIGIL_DATA_DIR: path.join(os.tmpdir(), "sigil-bench") },
  stdio: ["ignore", "inherit", "inherit"],
});
try {
  const healthz = () => fetch(`${base}/healthz`).then((r) => r.status, () => 0);
  await waitFor("the service to be ready", healthz, { until: (s) => s === 200, timeoutMs: 120_000, intervalMs: 500 });
  const headers = { authorization: `Bearer ${seeded.token}` };
  console.log(`\n${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), Node ${process.version}, ${connections} connections, ${seconds} s each`);
  console.log("| scenario | requests/s (avg) | p50 ms | p99 ms | users/page | count | 2xx | non-2xx/errors |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const s of scenarios) {
    const sample = (await fetch(`${base}${list}?${s.query}`, { headers }).then((r) => r.json())) as { users: unknown[]; count: number };
    const r = await autocannon({ url: `${base}${list}?${s.query}`, headers, connections, duration: seconds });
    console.log(
      `| ${s.name} | ${Math.round(r.requests.average)} | ${r.latency.p50} | ${r.latency.p99} | ${sample.users.length} | ${sample.count} | ${r["2xx"]} | ${r.non2xx + r.errors} |`,
    );
  }
} finally {
  server.kill("SIGTERM");
  await seeded.remove();
}
