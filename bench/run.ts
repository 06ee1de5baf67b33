/**
 * `npm run bench`: each case of the request path beside a bare baseline doing the same work, measured in the
 * same run, back to back, with the ratio Sigil / baseline. Loopback only; every case runs BENCH_SECONDS
 * (default 10) and so does its baseline.
 *
 *   REST GET user          GET /api/v0/environments/{env}/users/{id}   vs bare node:http, same work
 *   Connect GetUser (JSON) POST /sigil.users.v0.UsersService/GetUser    vs bare node:http, same work
 *   gRPC GetUser           HTTP/2 gRPC, same client for both            vs bare @grpc/grpc-js, same work
 *                          (the client runs in BENCH_GRPC_GENERATORS child processes, default 2)
 *   list 100 users         GET .../users?limit=100 on BENCH_USERS users vs bare node:http, same domain listUsers
 *
 * Sigil runs as `sigil start api` (one process, beside a `sigil start worker`; real Postgres/Redis/Temporal from DATABASE_URL / REDIS_URL /
 * TEMPORAL_ADDRESS, rate limit off, LOG_LEVEL=warn); the baselines (bench/baseline/) run as their own
 * processes. "Same work" is in bench/baseline/work.ts: cached token lookup, tenancy check, the same
 * repositories' SQL. BENCH_CASES=rest,connect,grpc,list picks cases.
 *
 *   DATABASE_URL=... REDIS_URL=... TEMPORAL_ADDRESS=... npm run bench
 */
import os from "node:os";
import { seconds } from "./support/env.js";
import { httpLoad, type Result } from "./support/load.js";
import { cpuSeconds, grpcLoad, startBaseline, startSigil, type Running } from "./support/processes.js";
import { seedTenant } from "./support/seed.js";

const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const users = Number(process.env.BENCH_USERS ?? 100_000);
const cases = new Set((process.env.BENCH_CASES ?? "rest,connect,grpc,list").split(","));
const port = Number(process.env.BENCH_PORT ?? 18080);
/** gRPC load generators: child processes of their own (bench/grpc-load.ts), so the bench process is not the bound. */
const grpcGenerators = Number(process.env.BENCH_GRPC_GENERATORS ?? 2);

const seeded = await seedTenant(users);
const { environmentId: env, userId, token } = seeded;
const auth = { authorization: `Bearer ${token}` };
const running: Running[] = [];
const rows: string[] = [];

/** A load run against one server, with the server process's CPU time per answered request (µs). */
async function measured(server: Running, run: () => Promise<Result>): Promise<Result & { cpuUs?: number }> {
  const before = cpuSeconds(server.child);
  const r = await run();
  const after = cpuSeconds(server.child);
  return { ...r, cpuUs: before !== undefined && after !== undefined && r.ok ? Math.round(((after - before) * 1e6) / r.ok) : undefined };
}

function row(name: string, sigil: Result & { cpuUs?: number }, bare: Result & { cpuUs?: number }) {
  const ratio = bare.rps ? sigil.rps / bare.rps : 0;
  const cpu = sigil.cpuUs && bare.cpuUs ? `${sigil.cpuUs} / ${bare.cpuUs} = ${((bare.cpuUs / sigil.cpuUs) * 100).toFixed(0)} %` : "-";
  const line = `| ${name} | ${sigil.rps} | ${sigil.p50} | ${sigil.p99} | ${bare.rps} | ${bare.p50} | ${bare.p99} | ${(ratio * 100).toFixed(0)} % | ${cpu} | ${sigil.failed + bare.failed} |`;
  rows.push(line);
  console.log(line);
}

try {
  // The api's /healthz wants a worker polling its task queues, as in production.
  running.push(await startSigil("worker", port + 10));
  const sigil = await startSigil("api", port);
  const http = await startBaseline("http-server.ts", port + 1);
  const grpc = await startBaseline("grpc-server.ts", port + 2, port + 3);
  running.push(sigil, http, grpc);
  const get = `/api/v0/environments/${env}/users/${userId}`;
  const list = `/api/v0/environments/${env}/users?limit=100`;
  // Warm both sides (JIT, pools, token cache) before measuring.
  for (const base of [sigil.base, http.base]) await httpLoad({ url: base + get, headers: auth, connections, seconds: 1 });

  console.log(`\n${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), Node ${process.version}, ${connections} connections, ${seconds} s per side, ${users} users`);
  // CPU µs per request of each server process: baseline / Sigil is the ratio that other load moves least.
  console.log("| case | Sigil req/s | p50 ms | p99 ms | baseline req/s | p50 ms | p99 ms | Sigil / baseline | server CPU µs/req, Sigil / baseline = baseline÷Sigil | errors |");
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  if (cases.has("rest")) {
    const bare = await measured(http, () => httpLoad({ url: http.base + get, headers: auth, connections, seconds }));
    const s = await measured(sigil, () => httpLoad({ url: sigil.base + get, headers: auth, connections, seconds }));
    row("REST GET user vs node:http", s, bare);
  }
  if (cases.has("connect")) {
    const body = JSON.stringify({ environmentId: env, userId });
    const headers = { ...auth, "content-type": "application/json" };
    const bare = await measured(http, () => httpLoad({ url: `${http.base}/get-user`, method: "POST", headers, body, connections, seconds }));
    const s = await measured(sigil, () => httpLoad({ url: `${sigil.base}/sigil.users.v0.UsersService/GetUser`, method: "POST", headers, body, connections, seconds }));
    row("Connect JSON GetUser vs node:http", s, bare);
  }
  if (cases.has("grpc")) {
    const load = (base: string) => grpcLoad({ base, environmentId: env, userId, token, connections, seconds, generators: grpcGenerators });
    const bare = await measured(grpc, () => load(grpc.base));
    const s = await measured(sigil, () => load(sigil.base));
    row("gRPC GetUser vs @grpc/grpc-js", s, bare);
  }
  if (cases.has("list")) {
    const bare = await measured(http, () => httpLoad({ url: http.base + list, headers: auth, connections, seconds }));
    const s = await measured(sigil, () => httpLoad({ url: sigil.base + list, headers: auth, connections, seconds }));
    row(`list 100 of ${users} users vs node:http`, s, bare);
  }
  console.log("\nMachine load from other processes moves absolute numbers; compare the ratios.");
} finally {
  for (const r of running) await r.stop();
  await seeded.remove();
}
