/**
 * Sigil's domain dependencies in a bench's own process (the seeding of bench/sessions.ts, the bare baseline
 * of bench/baseline/sessions-server.ts), assembled as the api process assembles them (src/deps.ts) from an
 * environment like the api's: the same database, Redis and sealing keys, so both sides sign and verify
 * with the same environment keys.
 */
import { randomBytes, randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config.js";
import { closeDatabase, connectDatabase } from "../../src/db/db.js";
import { buildDeps } from "../../src/deps.js";
import type { Deps, Flows } from "../../src/domain/deps.js";
import { createStore } from "../../src/store/store.js";
import { createBenchDatabase } from "./database.js";
import { benchServers, type BenchServers } from "./env.js";

// Sign-in, refresh and nonces start no durable flow; a call would be a bug of the bench.
const refuse = () => Promise.reject(new Error("a bench process starts no durable flows"));
const flows: Flows = { recoverWallets: refuse, startExport: refuse, startWebhookDelivery: refuse, wakeWebhookEndpoints: refuse, runWaasRoom: refuse, runWaasBackup: refuse, runWaasRecover: refuse };

export async function benchDeps(env: NodeJS.ProcessEnv): Promise<Deps & { close(): Promise<void> }> {
  const config = loadConfig(env);
  if (!config.databaseUrl || !config.redisUrl) throw new Error("set DATABASE_URL and REDIS_URL (real servers)");
  const db = connectDatabase(config.databaseUrl);
  const store = await createStore(config.redisUrl);
  const deps = buildDeps({ config, db, store, flows });
  return { ...deps, close: async () => (await store.close(), await closeDatabase(db)) };
}

/**
 * A bench's own deployment: a fresh database, a sealing key and task queue of its own, every rate limit off
 * (the bench measures throughput, not the limits); the env its api and worker processes run with, and the
 * domain's dependencies in the bench process on the same parts.
 */
export async function benchDeployment(name: string, extra: Record<string, string> = {}, servers: BenchServers = benchServers()) {
  const database = await createBenchDatabase(servers.databaseUrl);
  const childEnv: Record<string, string> = {
    DATABASE_URL: database.url,
    REDIS_URL: servers.redisUrl,
    TEMPORAL_ADDRESS: servers.temporalAddress,
    SIGIL_SEALING_KEYS: `bench:${randomBytes(32).toString("base64")}`,
    TEMPORAL_TASK_QUEUE: `bench-${name}-${randomUUID()}`,
    SIGIL_DATA_DIR: path.join(os.tmpdir(), `sigil-bench-${name}`),
    SIGIL_RATE_LIMIT_PER_MINUTE: "0",
    SIGIL_SDK_RATE_LIMIT_PER_10S: "0",
    SIGIL_SIGN_IN_RATE_LIMIT_PER_MINUTE: "0",
    ...extra,
  };
  const deps = await benchDeps({ ...process.env, ...childEnv });
  return { database, childEnv, deps };
}
