import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * Every setting of Sigil, read from the environment once and validated. Nothing else reads process.env.
 * Unset external addresses (DATABASE_URL, REDIS_URL, TEMPORAL_ADDRESS) select the embedded defaults.
 */
export interface Config {
  host: string;
  port: number;
  /** Base URL clients reach this service at (OAuth redirect URLs are built from it). */
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  temporalAddress: string | undefined;
  temporalNamespace: string;
  temporalTaskQueue: string;
  temporalCliPath: string | undefined;
  /** Port of the embedded Postgres (when DATABASE_URL is unset). */
  embeddedPostgresPort: number;
  /** Port of the embedded Temporal dev server's frontend; its UI listens on port + 1000. */
  embeddedTemporalPort: number;
  /** AES-256-GCM keys for secrets sealed at rest; the first one seals, all of them open. */
  sealingKeys: { id: string; key: Buffer }[];
  maxBodyBytes: number;
  rateLimitPerMinute: number;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
}

function int(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return n;
}

/**
 * SIGIL_SEALING_KEYS is "id:base64key,id2:base64key" (32-byte keys). Without it, a key is generated once and
 * kept in <dataDir>/sealing.key so an embedded install survives restarts; production must set it.
 */
function sealingKeys(env: NodeJS.ProcessEnv, dataDir: string): { id: string; key: Buffer }[] {
  const raw = env.SIGIL_SEALING_KEYS;
  if (raw) {
    return raw.split(",").map((entry) => {
      const [id, b64] = entry.split(":");
      const key = Buffer.from(b64 ?? "", "base64");
      if (!id || key.length !== 32) throw new Error("SIGIL_SEALING_KEYS entries must be id:<base64 of 32 bytes>");
      return { id, key };
    });
  }
  const file = path.join(dataDir, "sealing.key");
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `k1:${randomBytes(32).toString("base64")}\n`, { mode: 0o600 });
  }
  return sealingKeys({ SIGIL_SEALING_KEYS: readFileSync(file, "utf8").trim() }, dataDir);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int("PORT", 8080, env);
  const host = env.HOST || "127.0.0.1";
  const dataDir = path.resolve(env.SIGIL_DATA_DIR || "data");
  const logLevel = (env.LOG_LEVEL || "info") as Config["logLevel"];
  if (!["debug", "info", "warn", "error", "silent"].includes(logLevel)) throw new Error(`LOG_LEVEL ${logLevel} is unknown`);
  return {
    host,
    port,
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/$/, ""),
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    temporalAddress: env.TEMPORAL_ADDRESS || undefined,
    temporalNamespace: env.TEMPORAL_NAMESPACE || "default",
    temporalTaskQueue: env.TEMPORAL_TASK_QUEUE || "sigil",
    temporalCliPath: env.TEMPORAL_CLI_PATH || undefined,
    embeddedPostgresPort: int("SIGIL_EMBEDDED_PG_PORT", 54329, env),
    embeddedTemporalPort: int("SIGIL_EMBEDDED_TEMPORAL_PORT", 7233, env),
    sealingKeys: sealingKeys(env, dataDir),
    maxBodyBytes: int("SIGIL_MAX_BODY_BYTES", 1024 * 1024, env),
    rateLimitPerMinute: int("SIGIL_RATE_LIMIT_PER_MINUTE", 6000, env),
    logLevel,
  };
}
