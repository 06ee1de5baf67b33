/**
 * Child processes of a bench: Sigil itself (`sigil start <role>`), the bare baselines and the peers. Each runs
 * as its own process, like a deployment, and is stopped with SIGTERM when the bench ends.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { root } from "./env.js";
import { mergeResults, type Result } from "./load.js";
import { waitFor } from "../../test/support/poll.js";

export interface Running {
  base: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function waitHealthy(url: string, child: ChildProcess, timeoutMs = 120_000): Promise<void> {
  const status = async () => {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode}`);
    return fetch(url).then((r) => r.status, () => 0);
  };
  await waitFor(`${url} to answer 200`, status, { until: (s) => s === 200, timeoutMs, intervalMs: 200 });
}

function stopper(child: ChildProcess) {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
    });
}

/**
 * The V8 setting Sigil's processes run with (package.json `start`, docs/guide/production.md): a young generation
 * of 64 MiB, so a page of 100 users' short-lived objects die young. The baselines run with it too, so both
 * sides of a ratio have the same runtime.
 */
export const NODE_FLAGS = ["--max-semi-space-size=64"];

/** `sigil start <role>` on a port, rate limit off (a bench measures the path, not the limiter), LOG_LEVEL=warn. */
export async function startSigil(role: "dev" | "api" | "worker", port: number, nodeArgs: string[] = [], env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, [...NODE_FLAGS, ...nodeArgs, path.join(root, "bin/sigil.js"), "start", role], {
    env: {
      // The production roles refuse to start without shared keys; every process of a bench run gets the same
      // fixed ones (the bench's data is throwaway), unless the caller exported its own.
      SIGIL_SEALING_KEYS: `bench:${Buffer.alloc(32, 1).toString("base64")}`,
      SIGIL_BACKUP_SEALING_KEYS: `bench-backup:${Buffer.alloc(32, 2).toString("base64")}`,
      ...process.env,
      PORT: String(port),
      LOG_LEVEL: "warn",
      SIGIL_RATE_LIMIT_PER_MINUTE: "0",
      SIGIL_DATA_DIR: path.join(os.tmpdir(), "sigil-bench"),
      // A worker's own listener (/metrics, /livez, /readyz) takes the port it is given, not the default 9091
      // that a second worker of the same bench would also want.
      ...(role === "worker" ? { SIGIL_WORKER_PORT: String(port) } : {}),
      ...env,
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const base = `http://127.0.0.1:${port}`;
  const stop = stopper(child);
  // A process that never became ready is stopped here: the caller never got hold of it.
  if (role !== "worker") await waitHealthy(`${base}/healthz`, child).catch(async (err) => (await stop(), Promise.reject(err)));
  return { base, child, stop };
}

/** A server script run with the root's tsx; it answers /healthz on `healthPort` once listening. */
async function startScript(file: string, port: number, healthPort: number, nodeArgs: string[], env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, [...NODE_FLAGS, ...nodeArgs, "--import", "tsx", file], {
    env: { ...process.env, ...env, PORT: String(port), HEALTH_PORT: String(healthPort) },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const stop = stopper(child);
  await waitHealthy(`http://127.0.0.1:${healthPort}/healthz`, child).catch(async (err) => (await stop(), Promise.reject(err)));
  return { base: `http://127.0.0.1:${port}`, child, stop };
}

/** A bare baseline server (bench/baseline/*.ts) run with tsx; it answers /healthz once listening. */
export function startBaseline(file: string, port: number, healthPort = port, nodeArgs: string[] = [], env: Record<string, string> = {}): Promise<Running> {
  return startScript(path.join(root, "bench/baseline", file), port, healthPort, nodeArgs, env);
}

/**
 * A peer's server (bench/peer/<name>/server.ts), run like a baseline. Its dependencies are a package of their
 * own beside it (not Sigil's): installed from its lock file first when they are not there yet.
 */
export async function startPeer(name: string, port: number, env: Record<string, string> = {}): Promise<Running> {
  const dir = path.join(root, "bench/peer", name);
  if (!existsSync(path.join(dir, "node_modules"))) {
    console.log(`installing the peer's dependencies: npm ci --prefix ${path.relative(root, dir)}`);
    await promisify(execFile)("npm", ["ci", "--prefix", dir, "--no-audit", "--no-fund"], { cwd: root }).catch((err: { stderr?: string }) => {
      throw new Error(`npm ci --prefix ${path.relative(root, dir)} failed: ${err.stderr ?? err}`);
    });
  }
  return startScript(path.join(dir, "server.ts"), port, port, [], env);
}

/**
 * gRPC load from `generators` child processes (bench/grpc-load.ts), `connections` callers split among them,
 * all against `base` for `seconds`: the load generator's CPU stays out of the bench process (it used to be
 * the bottleneck there, for Sigil and the baseline alike).
 */
export async function grpcLoad(opts: { base: string; environmentId: string; userId: string; token: string; connections: number; seconds: number; generators: number }): Promise<Result> {
  const runs = Array.from({ length: opts.generators }, (_, i) => {
    const callers = Math.floor(opts.connections / opts.generators) + (i < opts.connections % opts.generators ? 1 : 0);
    const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "bench/grpc-load.ts")], {
      env: {
        ...process.env,
        BENCH_GRPC_BASE: opts.base,
        BENCH_GRPC_ENV: opts.environmentId,
        BENCH_GRPC_USER: opts.userId,
        BENCH_GRPC_TOKEN: opts.token,
        BENCH_GRPC_CALLERS: String(callers),
        BENCH_SECONDS: String(opts.seconds),
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout!.on("data", (c: Buffer) => (out += c.toString("utf8")));
    return new Promise<Result>((resolve, reject) =>
      child.once("exit", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop()!) as Result) : reject(new Error(`grpc-load exited with ${code}`)))),
    );
  });
  return mergeResults(await Promise.all(runs));
}

/**
 * CPU seconds (user + system) a child process (or any process by pid) has used so far, from /proc (Linux; undefined elsewhere). CPU per
 * request of each server is a steadier measure than requests per second on a machine that others load too.
 */
export function cpuSeconds(target: ChildProcess | number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${typeof target === "number" ? target : target.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command name.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}
