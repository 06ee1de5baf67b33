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
 *   metrics                REST GET user and Connect GetUser with metrics on (the default) vs the same api
 *                          with SIGIL_METRICS=off, tracing off in both: the cost of counting
 *   tracing                REST GET user with tracing on (OTEL_EXPORTER_OTLP_ENDPOINT: a loopback sink that
 *                          discards, bench/support/otlp-sink.ts) vs the same api with tracing off: its cost
 *
 * Sigil runs as `sigil start api` (one process, beside a `sigil start worker`; real Postgres/Redis/Temporal from DATABASE_URL / REDIS_URL /
 * TEMPORAL_ADDRESS, rate limit off, LOG_LEVEL=warn); the baselines (bench/baseline/) run as their own
 * processes. "Same work" is in bench/baseline/work.ts: cached token lookup, tenancy check, the same
 * repositories' SQL. BENCH_CASES=rest,connect,grpc,list,metrics,tracing picks cases.
 *
 *   DATABASE_URL=... REDIS_URL=... TEMPORAL_ADDRESS=... npm run bench
 */
import os from "node:os";
import { seconds } from "./support/env.js";
import { httpLoad, type Result } from "./support/load.js";
import { paired as pairedTurns, row, TABLE_HEADER, type Measured } from "./support/paired.js";
import { grpcLoad, startBaseline, startSigil, type Running } from "./support/processes.js";
import { seedTenant } from "./support/seed.js";
import { startOtlpSink } from "./support/otlp-sink.js";

const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const users = Number(process.env.BENCH_USERS ?? 100_000);
const cases = new Set((process.env.BENCH_CASES ?? "rest,connect,grpc,list,metrics,tracing").split(","));
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
const paired = (bare: Running, sigil: Running, run: (server: Running, s: number) => Promise<Result>) => pairedTurns(bare, sigil, run, { rounds: ROUNDS, seconds });

function report(name: string, measured: [Measured, Measured]) {
  const line = row(name, measured);
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
  console.log(TABLE_HEADER);
  if (cases.has("rest")) {
    report("REST GET user vs node:http", await paired(http, sigil, (server, s) => httpLoad({ url: server.base + get, headers: auth, connections, seconds: s })));
  }
  if (cases.has("connect")) {
    const body = JSON.stringify({ environmentId: env, userId });
    const headers = { ...auth, "content-type": "application/json" };
    // The baseline's twin of the Connect call takes the same JSON body at /get-user.
    const path = (server: Running) => (server === http ? "/get-user" : "/sigil.users.v0.UsersService/GetUser");
    report("Connect JSON GetUser vs node:http", await paired(http, sigil, (server, s) => httpLoad({ url: server.base + path(server), method: "POST", headers, body, connections, seconds: s })));
  }
  if (cases.has("grpc")) {
    report("gRPC GetUser vs @grpc/grpc-js", await paired(grpc, sigil, (server, s) => grpcLoad({ base: server.base, environmentId: env, userId, token, connections, seconds: s, generators: grpcGenerators })));
  }
  if (cases.has("list")) {
    report(`list 100 of ${users} users vs node:http`, await paired(http, sigil, (server, s) => httpLoad({ url: server.base + list, headers: auth, connections, seconds: s })));
  }
  if (cases.has("metrics")) {
    // The same api once more with metrics off: "baseline" is the uncounted api here, Sigil the default one.
    const uncounted = await startSigil("api", port + 30, [], { SIGIL_METRICS: "off" });
    running.push(uncounted);
    const body = JSON.stringify({ environmentId: env, userId });
    const headers = { ...auth, "content-type": "application/json" };
    await httpLoad({ url: uncounted.base + get, headers: auth, connections, seconds: 1 });
    report("REST GET user, metrics off vs on", await paired(uncounted, sigil, (server, s) => httpLoad({ url: server.base + get, headers: auth, connections, seconds: s })));
    report(
      "Connect GetUser, metrics off vs on",
      await paired(uncounted, sigil, (server, s) => httpLoad({ url: server.base + "/sigil.users.v0.UsersService/GetUser", method: "POST", headers, body, connections, seconds: s })),
    );
    // What a scrape costs the process that answers it (Prometheus asks every 15 to 60 s).
    const scrapes = await httpLoad({ url: sigil.base + "/metrics", connections: 1, seconds: 2 });
    console.log(`(GET /metrics: ${scrapes.rps.toFixed(0)} scrapes/s, p50 ${scrapes.p50} ms)`);
  }
  if (cases.has("tracing")) {
    // The same api once more, tracing to a sink that discards: "baseline" is the untraced api here.
    const sink = await startOtlpSink();
    try {
      const traced = await startSigil("api", port + 20, [], { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: "sigil-bench" });
      try {
        await httpLoad({ url: traced.base + get, headers: auth, connections, seconds: 1 });
        report("REST GET user, tracing on vs off", await paired(sigil, traced, (server, s) => httpLoad({ url: server.base + get, headers: auth, connections, seconds: s })));
      } finally {
        await traced.stop(); // before the sink: its last spans are flushed there
      }
      const { requests, bytes } = sink.received();
      console.log(`(the sink received ${requests} OTLP exports, ${Math.round(bytes / 1024)} KiB)`);
    } finally {
      await sink.stop();
    }
  }
  console.log("\nMachine load from other processes moves absolute numbers; compare the ratios.");
} finally {
  for (const r of running) await r.stop();
  await seeded.remove();
}
