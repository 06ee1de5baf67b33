/** Settings every bench reads: real servers from the environment, bounded durations, loopback only. */
import path from "node:path";

/** The real servers a bench runs against. */
export interface BenchServers {
  databaseUrl: string;
  redisUrl: string;
  temporalAddress: string;
}

/**
 * The servers a bench names in its environment, read when a bench asks for them (not at import): a test that
 * reuses a bench's harness passes the servers of the test run instead (test/setup/env.ts).
 */
export function benchServers(env: NodeJS.ProcessEnv = process.env): BenchServers {
  const { DATABASE_URL, REDIS_URL, TEMPORAL_ADDRESS } = env;
  if (!DATABASE_URL || !REDIS_URL || !TEMPORAL_ADDRESS) throw new Error("set DATABASE_URL, REDIS_URL and TEMPORAL_ADDRESS (real servers)");
  return { databaseUrl: DATABASE_URL, redisUrl: REDIS_URL, temporalAddress: TEMPORAL_ADDRESS };
}
/** Seconds each measured case runs (its baseline runs as long, right next to it). */
export const seconds = Number(process.env.BENCH_SECONDS ?? 10);
export const root = path.resolve(import.meta.dirname, "../..");
