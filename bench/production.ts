/**
 * `npm run bench:production`: Sigil deployed as in production, `sigil start worker` beside one, then two,
 * `sigil start api` processes against the same Postgres, Redis and Temporal (DATABASE_URL, REDIS_URL,
 * TEMPORAL_ADDRESS), REST GET user under the same total load (BENCH_CONNECTIONS, default 20, split evenly
 * across the api processes, as a load balancer would), BENCH_SECONDS per configuration. An api process is
 * one Node thread: a second one is how a deployment uses a second core. Rate limit off, LOG_LEVEL=warn.
 */
import os from "node:os";
import { seconds } from "./support/env.js";
import { httpLoad, type Result } from "./support/load.js";
import { startSigil, type Running } from "./support/processes.js";
import { seedTenant } from "./support/seed.js";

const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
const port = Number(process.env.BENCH_PORT ?? 18280);
const seeded = await seedTenant(Number(process.env.BENCH_USERS ?? 1_000));
const path = `/api/v0/environments/${seeded.environmentId}/users/${seeded.userId}`;
const headers = { authorization: `Bearer ${seeded.token}` };
const running: Running[] = [];

/** The same total load spread over the api processes, all at once; throughput adds up, the worst p99 counts. */
async function load(apis: readonly Running[], secs: number): Promise<Result> {
  const parts = await Promise.all(
    apis.map((api, i) => {
      const share = Math.floor(connections / apis.length) + (i < connections % apis.length ? 1 : 0);
      return httpLoad({ url: api.base + path, headers, connections: share, seconds: secs });
    }),
  );
  const sum = (f: (r: Result) => number) => parts.reduce((n, r) => n + f(r), 0);
  return { rps: sum((r) => r.rps), p50: Math.max(...parts.map((r) => r.p50)), p99: Math.max(...parts.map((r) => r.p99)), ok: sum((r) => r.ok), failed: sum((r) => r.failed) };
}

try {
  running.push(await startSigil("worker", port + 10));
  const apis = [await startSigil("api", port)];
  running.push(...apis);
  const rows: string[] = [];
  const measure = async () => {
    await load(apis, 1); // warm-up: JIT, pools, token caches
    const r = await load(apis, seconds);
    rows.push(`| ${apis.length} api + 1 worker | ${r.rps} | ${r.p50} | ${r.p99} | ${r.failed} |`);
    return r;
  };
  const one = await measure();
  apis.push(await startSigil("api", port + 1));
  running.push(apis[1]!);
  const two = await measure();
  console.log(`\n${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), Node ${process.version}, REST GET user, ${connections} connections in all, ${seconds} s each`);
  console.log("| deployment | req/s | p50 ms (worst api) | p99 ms (worst api) | errors |\n|---|---|---|---|---|");
  for (const r of rows) console.log(r);
  console.log(`\n2 api / 1 api: ${one.rps ? ((two.rps / one.rps) * 100).toFixed(0) : "-"} %`);
} finally {
  for (const r of running) await r.stop();
  await seeded.remove();
}
