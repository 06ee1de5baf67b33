/**
 * Soak test: minutes of steady mixed load on loopback against Sigil started as production starts it (`sigil
 * start api` and `sigil start worker`, separate processes, on real Postgres, Redis and Temporal from
 * DATABASE_URL / REDIS_URL / TEMPORAL_ADDRESS; a database of its own on DATABASE_URL's server, dropped at the
 * end). Looks for what a 10-second bench cannot see: memory that only grows, latency that drifts, errors
 * that appear after a while, a webhook or export backlog that never drains.
 *
 * Load, paced at BENCH_SOAK_RATE requests/s (default 50, well under what a shared 2-core machine serves: a soak
 * looks for drift, not for the ceiling; at most 64 in flight, requests beyond that are counted as "shed"):
 * user reads (20 % list, 45 % get), user writes (20 % create, 15 % update: each an event that the
 * outbox relays to a subscribed webhook on a loopback receiver), and an export every 5 s. Runs
 * BENCH_SOAK_SECONDS (default 180), then waits up to 60 s for deliveries and exports to finish.
 *
 * Every 10 s: api and worker resident memory (VmRSS of /proc/<pid>/status: what the OS must give the process;
 * no debug endpoint needed), req/s, p50/p99, errors, shed, webhook deliveries, the undispatched/undelivered
 * backlog, the machine's 1-minute load average (the machine may be shared).
 *
 * Verdict (exit 1 when any fails):
 * - memory: RSS slope after the first 30 s (least squares) at most 2 MB/min per process;
 * - p99: the median p99 of the last third of the windows at most 2x that of the first third after warm-up
 *   (or 25 ms more: a few ms doubling is noise);
 * - errors: no failed request, one message per event and every message (and the endpoint's ping) delivered,
 *   every export completed.
 *
 *   DATABASE_URL=... REDIS_URL=... TEMPORAL_ADDRESS=... npm run bench:soak
 */
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { closeDatabase, connectDatabase } from "../src/db/db.js";
import { bootstrapTenant } from "../src/domain/tenancy/bootstrap.js";
import { findFreePort } from "../src/infra/ports.js";
import { createBenchDatabase } from "./support/database.js";
import { benchServers } from "./support/env.js";
import { startSigil, type Running } from "./support/processes.js";

const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 180);
const RATE = Number(process.env.BENCH_SOAK_RATE ?? 50);
const SAMPLE_MS = 10_000;
const MAX_IN_FLIGHT = 64;
const SEED_USERS = 5_000;
const EXPORT_EVERY_MS = 5_000;
const DRAIN_MS = 60_000;
const WARMUP_MS = 30_000;

// --- a deployment of its own: database, sealing key, task queue -------------------------------------------
const database = await createBenchDatabase(benchServers().databaseUrl);
const db = connectDatabase(database.url, { max: 2 });
const children: Running[] = [];
// Bounded whatever happens: past this, everything is stopped and the process exits.
const hardStop = setTimeout(() => {
  console.error("soak: hard time limit reached, stopping");
  void cleanup().finally(() => process.exit(2));
}, (SECONDS + DRAIN_MS / 1000 + 180) * 1000);
hardStop.unref();

async function cleanup(): Promise<void> {
  await Promise.allSettled(children.map((c) => c.stop()));
  await closeDatabase(db).catch(() => {});
  await database.drop().catch((err) => console.error(`soak: could not drop ${database.url}: ${err}`));
}

// --- the webhook receiver --------------------------------------------------------------------------------
const arrivals = new Set<string>();
let duplicates = 0;
let windowDeliveries = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const id = String(req.headers["webhook-id"]);
    if (arrivals.has(id)) duplicates++;
    else {
      arrivals.add(id);
      windowDeliveries++;
    }
    res.writeHead(200).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/soak`;

interface Sample {
  t: number;
  apiRssMb: number;
  workerRssMb: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  shed: number;
  deliveries: number;
  backlog: number;
  load: number;
}

let exitCode = 0;
try {
  const tenant = await bootstrapTenant(db);
  const env = tenant.environmentId;
  await db.none(
    `INSERT INTO users (id, environment_id, email, first_name, username, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'soak' || g || '@bench.example.com', 'First' || g, 'soak_' || g, now(), now()
     FROM generate_series(1, $2) g`,
    [env, SEED_USERS],
  );
  await db.none("VACUUM ANALYZE users");
  const seeded = await db.map("SELECT id FROM users WHERE environment_id = $1", [env], (r) => r.id as string);

  const childEnv = {
    DATABASE_URL: database.url,
    SIGIL_SEALING_KEYS: `soak:${randomBytes(32).toString("base64")}`,
    TEMPORAL_TASK_QUEUE: `soak-${randomUUID()}`,
  };
  // The worker first: the api is ready only once a worker polls its task queue.
  const worker = await startSigil("worker", await findFreePort(), [], childEnv);
  children.push(worker);
  const api = await startSigil("api", await findFreePort(), [], childEnv);
  children.push(api);

  const request = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api.base}/api/v0${path}`, {
      method,
      headers: { authorization: `Bearer ${tenant.token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) : undefined;
  };
  await request("POST", `/environments/${env}/webhooks`, { url: receiverUrl, events: ["user.created", "user.updated"] });

  // --- the load ----------------------------------------------------------------------------------------------
  const created: string[] = [];
  const exportIds: string[] = [];
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)]!;
  let lastExport = 0;
  function nextOp(): () => Promise<unknown> {
    if (Date.now() - lastExport >= EXPORT_EVERY_MS) {
      lastExport = Date.now();
      return async () => exportIds.push((await request("POST", `/environments/${env}/exports`, { format: "csv", model: "users" })).id);
    }
    const r = Math.random();
    if (r < 0.2) return () => request("GET", `/environments/${env}/users`);
    if (r < 0.65) return () => request("GET", `/environments/${env}/users/${pick(seeded)}`);
    if (r < 0.85 || !created.length)
      return async () => created.push((await request("POST", `/environments/${env}/users`, { email: `w-${randomUUID()}@bench.example.com` })).user.id);
    return () => request("PUT", `/environments/${env}/users/${pick(created)}`, { firstName: `n${Math.floor(Math.random() * 1e6)}` });
  }

  let latencies: number[] = [];
  let errors = 0;
  let shed = 0;
  let totalErrors = 0;
  let firstError: string | undefined;
  let inFlight = 0;
  const started = Date.now();
  const end = started + SECONDS * 1000;
  // Paced by the clock, not by ticks: a late timer launches what fell due meanwhile.
  let launched = 0;
  const pacer = setInterval(() => {
    const target = Math.floor((RATE * (Date.now() - started)) / 1000);
    for (; launched < target; launched++) {
      if (inFlight >= MAX_IN_FLIGHT) {
        shed++;
        continue;
      }
      const op = nextOp();
      const t0 = performance.now();
      inFlight++;
      op().then(
        () => latencies.push(performance.now() - t0),
        (err) => {
          errors++;
          totalErrors++;
          firstError ??= String(err);
        },
      ).finally(() => inFlight--);
    }
  }, 10);

  const rssMb = (pid: number) => {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Math.round(Number(m[1]) / 1024) : NaN;
  };
  const backlog = async () =>
    (
      await db.one(
        `SELECT (SELECT count(*) FROM events WHERE dispatched_at IS NULL)::int + (SELECT count(*) FROM webhook_messages WHERE status = 'pending')::int AS n`,
      )
    ).n as number;
  const samples: Sample[] = [];
  const pct = (xs: number[], q: number) => Math.round(xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN);
  console.log(`soak: ${SECONDS} s at ${RATE} req/s on ${os.cpus().length} CPUs, api pid ${api.child.pid}, worker pid ${worker.child.pid}`);
  console.log("   t  api MB  wrk MB   req/s  p50 ms  p99 ms  errors  shed  deliv/s  backlog  load1");
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, Math.min(SAMPLE_MS, end - Date.now())));
    const window = latencies.sort((a, b) => a - b);
    latencies = [];
    const s: Sample = {
      t: Math.round((Date.now() - started) / 1000),
      apiRssMb: rssMb(api.child.pid!),
      workerRssMb: rssMb(worker.child.pid!),
      rps: Math.round(window.length / (SAMPLE_MS / 1000)),
      p50: pct(window, 0.5),
      p99: pct(window, 0.99),
      errors,
      shed,
      deliveries: Math.round(windowDeliveries / (SAMPLE_MS / 1000)),
      backlog: await backlog(),
      load: os.loadavg()[0]!,
    };
    errors = 0;
    shed = 0;
    windowDeliveries = 0;
    samples.push(s);
    const col = (v: number | string, w: number) => String(v).padStart(w);
    console.log(
      [col(s.t, 4), col(s.apiRssMb, 7), col(s.workerRssMb, 7), col(s.rps, 7), col(s.p50, 7), col(s.p99, 7), col(s.errors, 7), col(s.shed, 5), col(s.deliveries, 8), col(s.backlog, 8), col(s.load.toFixed(2), 6)].join(" "),
    );
  }
  clearInterval(pacer);
  while (inFlight > 0) await new Promise((r) => setTimeout(r, 50));

  // --- drain: every event delivered, every export finished ----------------------------------------------------
  const exportsLeft = async () =>
    (await db.one(`SELECT count(*)::int AS n FROM exports WHERE environment_id = $1 AND status <> 'completed'`, [env])).n as number;
  // Every message of the environment: one per event, and the ping that greets a new endpoint.
  const messages = async () => (await db.one(`SELECT count(*)::int AS n FROM webhook_messages WHERE environment_id = $1`, [env])).n as number;
  const drainEnd = Date.now() + DRAIN_MS;
  const drainStart = Date.now();
  while (Date.now() < drainEnd && ((await backlog()) > 0 || (await exportsLeft()) > 0 || arrivals.size < (await messages()))) {
    await new Promise((r) => setTimeout(r, 500));
  }
  const events = (await db.one(`SELECT count(*)::int AS n FROM events WHERE environment_id = $1 AND event_name IN ('user.created', 'user.updated')`, [env])).n as number;
  const stored = await messages();
  const eventMessages = (await db.one(`SELECT count(*)::int AS n FROM webhook_messages WHERE environment_id = $1 AND event_id IS NOT NULL`, [env]))
    .n as number;
  const unfinishedExports = await exportsLeft();

  // --- verdict -----------------------------------------------------------------------------------------------
  const steady = samples.filter((s) => s.t * 1000 > WARMUP_MS);
  const slope = (ys: number[], ts: number[]) => {
    const n = ys.length;
    if (n < 3) return NaN;
    const mt = ts.reduce((a, b) => a + b, 0) / n;
    const my = ys.reduce((a, b) => a + b, 0) / n;
    const cov = ts.reduce((a, t, i) => a + (t - mt) * (ys[i]! - my), 0);
    const varT = ts.reduce((a, t) => a + (t - mt) ** 2, 0);
    return (cov / varT) * 60; // MB per minute
  };
  const ts = steady.map((s) => s.t);
  const apiSlope = slope(steady.map((s) => s.apiRssMb), ts);
  const workerSlope = slope(steady.map((s) => s.workerRssMb), ts);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const third = Math.max(1, Math.floor(steady.length / 3));
  const p99First = median(steady.slice(0, third).map((s) => s.p99));
  const p99Last = median(steady.slice(-third).map((s) => s.p99));
  const requests = samples.reduce((a, s) => a + s.rps * (SAMPLE_MS / 1000), 0);
  const checks = [
    { name: `api RSS slope ${apiSlope.toFixed(2)} MB/min (<= 2)`, ok: apiSlope <= 2 },
    { name: `worker RSS slope ${workerSlope.toFixed(2)} MB/min (<= 2)`, ok: workerSlope <= 2 },
    { name: `p99 first third ${p99First} ms, last third ${p99Last} ms (last <= 2x first, or + 25 ms)`, ok: p99Last <= Math.max(2 * p99First, p99First + 25) },
    { name: `failed requests ${totalErrors}${firstError ? ` (first: ${firstError})` : ""}`, ok: totalErrors === 0 },
    {
      name: `webhook: ${events} events, ${eventMessages} event messages + ${stored - eventMessages} ping, ${arrivals.size} delivered, ${duplicates} repeats, drained in ${((Date.now() - drainStart) / 1000).toFixed(1)} s`,
      ok: eventMessages === events && arrivals.size === stored,
    },
    { name: `exports: ${exportIds.length} created, ${unfinishedExports} not completed`, ok: exportIds.length > 0 && unfinishedExports === 0 },
  ];
  console.log(`\n~${Math.round(requests)} requests in ${SECONDS} s; shed ${samples.reduce((a, s) => a + s.shed, 0)}`);
  for (const c of checks) console.log(`${c.ok ? "PASS" : "FAIL"}  ${c.name}`);
  const verdict = checks.every((c) => c.ok);
  console.log(`verdict: ${verdict ? "PASS" : "FAIL"}`);
  if (!verdict) exitCode = 1;
} catch (err) {
  console.error(err);
  exitCode = 1;
} finally {
  receiver.close();
  await cleanup();
  clearTimeout(hardStop);
}
process.exit(exitCode);
