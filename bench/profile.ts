/**
 * `npm run bench:profile`: one case under load with the api process started under `node --cpu-prof`, then
 * the profile's summary (where the api process spends its CPU). BENCH_PROFILE_CASE=get|connect|list (default
 * get; connect is GetUser over the Connect protocol with a JSON body),
 * BENCH_SECONDS long (default 10), 10 connections. BENCH_PROFILE_TARGET=baseline profiles the bare node:http
 * baseline doing the same work instead (bench/baseline/http-server.ts; the get and list cases), to compare
 * where each spends its time. The .cpuprofile stays in BENCH_PROFILE_DIR for a flame
 * graph (open it in Chrome DevTools or speedscope).
 */
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { seconds } from "./support/env.js";
import { httpLoad } from "./support/load.js";
import { startBaseline, startSigil, type Running } from "./support/processes.js";
import { summarise } from "./support/profile-summary.js";
import { seedTenant } from "./support/seed.js";

const which = process.env.BENCH_PROFILE_CASE ?? "get";
const baseline = process.env.BENCH_PROFILE_TARGET === "baseline";
const dir = process.env.BENCH_PROFILE_DIR ?? path.join(os.tmpdir(), "sigil-profile");
const port = Number(process.env.BENCH_PORT ?? 18180);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });

const seeded = await seedTenant(Number(process.env.BENCH_USERS ?? (which === "list" ? 100_000 : 1_000)));
const running: Running[] = [];
try {
  running.push(await startSigil("worker", port + 10));
  const spawned = Date.now();
  const profiled = ["--cpu-prof", `--cpu-prof-dir=${dir}`];
  const api = baseline ? await startBaseline("http-server.ts", port, port, profiled) : await startSigil("api", port, profiled);
  running.push(api);
  const url =
    which === "list"
      ? `${api.base}/api/v0/environments/${seeded.environmentId}/users?limit=100`
      : which === "connect"
        ? `${api.base}/sigil.users.v0.UsersService/GetUser`
        : `${api.base}/api/v0/environments/${seeded.environmentId}/users/${seeded.userId}`;
  const headers: Record<string, string> = { authorization: `Bearer ${seeded.token}` };
  const post = which === "connect" ? { method: "POST" as const, body: JSON.stringify({ environmentId: seeded.environmentId, userId: seeded.userId }) } : {};
  if (which === "connect") headers["content-type"] = "application/json";
  await httpLoad({ url, headers, ...post, connections: 10, seconds: 1 });
  const measured = Date.now();
  const r = await httpLoad({ url, headers, ...post, connections: 10, seconds });
  console.log(`${baseline ? "baseline " : ""}${which}: ${r.rps} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.failed}`);
  await api.stop();
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no profile written in ${dir}`);
  // Start-up and warm-up are left out: the summary is the steady state under load.
  console.log(summarise(path.join(dir, file), 25, measured - spawned));
} finally {
  for (const r of running) await r.stop();
  await seeded.remove();
}
