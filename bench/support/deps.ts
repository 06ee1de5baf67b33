/**
 * Sigil's domain dependencies in a bench's own process (the seeding of bench/sessions.ts, the bare baseline
 * of bench/baseline/sessions-server.ts), assembled as the api process assembles them (src/deps.ts) from an
 * environment like the api's: the same database, Redis and sealing keys, so both sides sign and verify
 * with the same environment keys.
 */
import { loadConfig } from "../../src/config.js";
import { closeDatabase, connectDatabase } from "../../src/db/db.js";
import { buildDeps } from "../../src/deps.js";
import type { Deps, Flows } from "../../src/domain/deps.js";
import { createStore } from "../../src/store/store.js";

// Sign-in, refresh and nonces start no durable flow; a call would be a bug of the bench.
const refuse = () => Promise.reject(new Error("a bench process starts no durable flows"));
const flows: Flows = { recoverWallets: refuse, startExport: refuse, startWebhookDelivery: refuse, wakeWebhookEndpoints: refuse };

export async function benchDeps(env: NodeJS.ProcessEnv): Promise<Deps & { close(): Promise<void> }> {
  const config = loadConfig(env);
  if (!config.databaseUrl || !config.redisUrl) throw new Error("set DATABASE_URL and REDIS_URL (real servers)");
  const db = connectDatabase(config.databaseUrl);
  const store = await createStore(config.redisUrl);
  const deps = buildDeps({ config, db, store, flows });
  return { ...deps, close: async () => (await store.close(), await closeDatabase(db)) };
}
