/**
 * Child processes of a bench: Sigil itself (`sigil start <role>`) and the bare baselines. Each runs as its own
 * process, like a deployment, and is stopped with SIGTERM when the bench ends.
 */
import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { root } from "./env.js";

export interface Running {
  base: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function waitHealthy(url: string, child: ChildProcess, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await fetch(url).then((r) => r.status, () => 0)) !== 200) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`${url} did not become ready`);
    await new Promise((r) => setTimeout(r, 200));
  }
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

/** `sigil start <role>` on a port, rate limit off (a bench measures the path, not the limiter), LOG_LEVEL=warn. */
export async function startSigil(role: "dev" | "api" | "worker", port: number, nodeArgs: string[] = [], env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, [...nodeArgs, path.join(root, "bin/sigil.js"), "start", role], {
    env: {
      ...process.env,
      PORT: String(port),
      LOG_LEVEL: "warn",
      SIGIL_RATE_LIMIT_PER_MINUTE: "0",
      SIGIL_DATA_DIR: path.join(os.tmpdir(), "sigil-bench"),
      ...env,
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const base = `http://127.0.0.1:${port}`;
  if (role !== "worker") await waitHealthy(`${base}/healthz`, child);
  return { base, child, stop: stopper(child) };
}

/** A bare baseline server (bench/baseline/*.ts) run with tsx; it answers /healthz once listening. */
export async function startBaseline(file: string, port: number, healthPort = port): Promise<Running> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "bench/baseline", file)], {
    env: { ...process.env, PORT: String(port), HEALTH_PORT: String(healthPort) },
    stdio: ["ignore", "inherit", "inherit"],
  });
  await waitHealthy(`http://127.0.0.1:${healthPort}/healthz`, child);
  return { base: `http://127.0.0.1:${port}`, child, stop: stopper(child) };
}
