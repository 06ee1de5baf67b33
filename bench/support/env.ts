/** Settings every bench reads: real servers from the environment, bounded durations, loopback only. */
import path from "node:path";

const { DATABASE_URL, REDIS_URL, TEMPORAL_ADDRESS } = process.env;
if (!DATABASE_URL || !REDIS_URL || !TEMPORAL_ADDRESS) throw new Error("set DATABASE_URL, REDIS_URL and TEMPORAL_ADDRESS (real servers)");

export const databaseUrl = DATABASE_URL;
/** Seconds each measured case runs (its baseline runs as long, right next to it). */
export const seconds = Number(process.env.BENCH_SECONDS ?? 10);
export const root = path.resolve(import.meta.dirname, "../..");
