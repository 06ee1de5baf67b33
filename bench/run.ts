/**
 * `npm run bench`: each case of the request path beside a bare baseline doing the same work, measured in the
 * same run, taking turns (BENCH_ROUNDS, default 4), with the ratio Sigil / baseline. Loopback only; every case runs BENCH_SECONDS
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

/** Turns the baseline and Sigil take per case; each turn runs BENCH_SECONDS / ROUNDS. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);

type Measured = Result & { cpuUs?: number };

/**
 * One case: the baseline and Sigil take turns (ROUNDS short runs each, alternating), so a change in the
 * shared machine's load during the case falls on both sides alike; run back to back as two long runs, the
 * ratio moved by 20 points between identical runs. Per side: requests per second over all its turns, the
 * mean of the turns' p50, the worst turn's p99, and the server process's CPU time per answered request (µs).
 */
async function paired(bareServer: Running, sigilServer: Running, run: (server: Running, seconds: number) => Promise<Result>): Promise<[Measured, Measured]> {
  const turns: [Result[], Result[]] = [[], []];
  const cpu = [0, 0];
  let cpuKnown = true;
  for (let i = 0; i < ROUNDS; i++) {
    for (const [side, server] of [bareServer, sigilServer].entries()) {
      const before = cpuSeconds(server.child);
      turns[side]!.push(await run(server, seconds / ROUNDS));
      const after = cpuSeconds(server.child);
      if (before === undefined || after === undefined) cpuKnown = false;
      else cpu[side]! += after - before;
    }
  }
  const summary = (rs: Result[], cpuSec: number): Measured => {
    const ok = rs.reduce((n, r) => n + r.ok, 0);
    return {
      rps: Math.round(rs.reduce((n, r) => n + r.rps, 0) / rs.length),
      p50: Math.round(rs.reduce((n, r) => n + r.p50, 0) / rs.length),
      p99: Math.max(...rs.map((r) => r.p99)),
      ok,
      failed: rs.reduce((n, r) => n + r.failed, 0),
      cpuUs: cpuKnown && ok ? Math.round((cpuSec * 1e6) / ok) : undefined,
    };
  };
  return [summary(turns[0], cpu[0]!), summary(turns[1], cpu[1]!)];
}

function row(name: string, [bare, sigil]: [Measured, Measured]) {
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
    row("REST GET user vs node:http", await paired(http, sigil, (server, s) => httpLoad({ url: server.base + get, headers: auth, connections, seconds: s })));
  }
  if (cases.has("connect")) {
    const body = JSON.stringify({ environmentId: env, userId });
    const headers = { ...auth, "content-type": "application/json" };
    // The baseline's twin of the Connect call takes the same JSON body at /get-user.
    const path = (server: Running) => (server === http ? "/get-user" : "/sigil.users.v0.UsersService/GetUser");
    row("Connect JSON GetUser vs node:http", await paired(http, sigil, (server, s) => httpLoad({ url: server.base + path(server), method: "POST", headers, body, connections, seconds: s })));
  }
  if (cases.has("grpc")) {
    row("gRPC GetUser vs @grpc/grpc-js", await paired(grpc, sigil, (server, s) => grpcLoad({ base: server.base, environmentId: env, userId, token, connections, seconds: s, generators: grpcGenerators })));
  }
  if (cases.has("list")) {
    row(`list 100 of ${users} users vs node:http`, await paired(http, sigil, (server, s) => httpLoad({ url: server.base + list, headers: auth, connections, seconds: s })));
  }
  console.log("\nMachine load from other processes moves absolute numbers; compare the ratios.");
} finally {
  for (const r of running) await r.stop();
  await seeded.remove();
}
