/**
 * `npm run bench`: each case of the request path beside a bare baseline doing the same work, measured in the
 * same run, back to back, with the ratio Sigil / baseline. Loopback only; every case runs BENCH_SECONDS
 * (default 10) and so does its baseline.
 *
 *   REST GET user          GET /api/v0/environments/{env}/users/{id}   vs bare node:http, same work
 *   Connect GetUser (JSON) POST /sigil.users.v0.UsersService/GetUser    vs bare node:http, same work
 *   gRPC GetUser           HTTP/2 gRPC, same client for both            vs bare @grpc/grpc-js, same work
 *   list 100 users         GET .../users?limit=100 on BENCH_USERS users vs bare node:http, same SQL and JSON
 *
 * Sigil runs as `sigil start api` (one process, beside a `sigil start worker`; real Postgres/Redis/Temporal from DATABASE_URL / REDIS_URL /
 * TEMPORAL_ADDRESS, rate limit off, LOG_LEVEL=warn); the baselines (bench/baseline/) run as their own
 * processes. "Same work" is in bench/baseline/work.ts: cached token lookup, tenancy check, the same
 * repositories' SQL. BENCH_CASES=rest,connect,grpc,list picks cases.
 *
 *   DATABASE_URL=... REDIS_URL=... TEMPORAL_ADDRESS=... npm run bench
 */
import os from "node:os";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { UsersService } from "../src/gen/sigil/users/v0/users_service_pb.js";
import { seconds } from "./support/env.js";
import { callLoad, httpLoad, type Result } from "./support/load.js";
import { startBaseline, startSigil, type Running } from "./support/processes.js";
import { seedTenant } from "./support/seed.js";

const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const users = Number(process.env.BENCH_USERS ?? 100_000);
const cases = new Set((process.env.BENCH_CASES ?? "rest,connect,grpc,list").split(","));
const port = Number(process.env.BENCH_PORT ?? 18080);

const seeded = await seedTenant(users);
const { environmentId: env, userId, token } = seeded;
const auth = { authorization: `Bearer ${token}` };
const running: Running[] = [];
const rows: string[] = [];

function row(name: string, sigil: Result, bare: Result) {
  const ratio = bare.rps ? sigil.rps / bare.rps : 0;
  const line = `| ${name} | ${sigil.rps} | ${sigil.p50} | ${sigil.p99} | ${bare.rps} | ${bare.p50} | ${bare.p99} | ${(ratio * 100).toFixed(0)} % | ${sigil.failed + bare.failed} |`;
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
  console.log("| case | Sigil req/s | p50 ms | p99 ms | baseline req/s | p50 ms | p99 ms | Sigil / baseline | errors |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  if (cases.has("rest")) {
    const bare = await httpLoad({ url: http.base + get, headers: auth, connections, seconds });
    const s = await httpLoad({ url: sigil.base + get, headers: auth, connections, seconds });
    row("REST GET user vs node:http", s, bare);
  }
  if (cases.has("connect")) {
    const body = JSON.stringify({ environmentId: env, userId });
    const headers = { ...auth, "content-type": "application/json" };
    const bare = await httpLoad({ url: `${http.base}/get-user`, method: "POST", headers, body, connections, seconds });
    const s = await httpLoad({ url: `${sigil.base}/sigil.users.v0.UsersService/GetUser`, method: "POST", headers, body, connections, seconds });
    row("Connect JSON GetUser vs node:http", s, bare);
  }
  if (cases.has("grpc")) {
    const client = (base: string) => {
      const c = createClient(UsersService, createGrpcTransport({ baseUrl: base }));
      return () => c.getUser({ environmentId: env, userId }, { headers: auth });
    };
    const bareCall = client(grpc.base);
    const sigilCall = client(sigil.base);
    await callLoad(bareCall, connections, 1);
    await callLoad(sigilCall, connections, 1);
    const bare = await callLoad(bareCall, connections, seconds);
    const s = await callLoad(sigilCall, connections, seconds);
    row("gRPC GetUser vs @grpc/grpc-js", s, bare);
  }
  if (cases.has("list")) {
    const bare = await httpLoad({ url: http.base + list, headers: auth, connections, seconds });
    const s = await httpLoad({ url: sigil.base + list, headers: auth, connections, seconds });
    row(`list 100 of ${users} users vs node:http`, s, bare);
  }
  console.log("\nMachine load from other processes moves absolute numbers; compare the ratios.");
} finally {
  for (const r of running) await r.stop();
  await seeded.remove();
}
