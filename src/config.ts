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
  webhooks: WebhookSettings;
}

/** How webhook messages are delivered (src/domain/webhooks/delivery.ts, src/workflows/webhook-delivery.ts). */
export interface WebhookSettings {
  /**
   * Delay before each attempt, in ms, per environment kind: the first entry is the delay of the first
   * attempt (0 = immediately); the message fails once every entry was tried.
   */
  schedule: { live: number[]; sandbox: number[] };
  /** Timeout of one request to an endpoint. */
  requestTimeoutMs: number;
  /** Concurrent requests to one endpoint at most (slots in the store). */
  concurrencyPerEndpoint: number;
  /** Retry-After of a 429/503 is honoured up to this long. */
  retryAfterMaxMs: number;
  /** An endpoint whose deliveries failed continuously for this long is disabled (reason `failing`). */
  disableAfterFailingMs: { live: number; sandbox: number };
  /** How often the outbox dispatcher polls besides LISTEN/NOTIFY. */
  dispatcherPollMs: number;
  /** A pending message whose workflow never ran is (re)started after this long. */
  orphanAfterMs: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  schedule: {
    live: [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR],
    sandbox: [0, 1 * SECOND, 5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, 1 * HOUR],
  },
  requestTimeoutMs: 15 * SECOND,
  concurrencyPerEndpoint: 5,
  retryAfterMaxMs: 10 * MINUTE,
  disableAfterFailingMs: { live: 5 * 24 * HOUR, sandbox: 24 * HOUR },
  dispatcherPollMs: 2 * SECOND,
  orphanAfterMs: 10 * SECOND,
};

/** "0,5s,5m,2h" -> ms; plain numbers are ms. */
function durations(name: string, raw: string | undefined, fallback: number[]): number[] {
  if (raw === undefined || raw === "") return fallback;
  const unit: Record<string, number> = { ms: 1, s: SECOND, m: MINUTE, h: HOUR, d: 24 * HOUR };
  return raw.split(",").map((part) => {
    const m = /^\s*(\d+(?:\.\d+)?)(ms|s|m|h|d)?\s*$/.exec(part);
    if (!m) throw new Error(`${name} must be a comma-separated list of durations like 0,5s,5m,2h, got ${JSON.stringify(raw)}`);
    return Math.round(Number(m[1]) * unit[m[2] ?? "ms"]!);
  });
}

function webhookSettings(env: NodeJS.ProcessEnv): WebhookSettings {
  const d = DEFAULT_WEBHOOK_SETTINGS;
  const concurrency = int("SIGIL_WEBHOOK_CONCURRENCY_PER_ENDPOINT", d.concurrencyPerEndpoint, env);
  if (concurrency < 1) throw new Error("SIGIL_WEBHOOK_CONCURRENCY_PER_ENDPOINT must be at least 1");
  const live = durations("SIGIL_WEBHOOK_SCHEDULE_LIVE", env.SIGIL_WEBHOOK_SCHEDULE_LIVE, d.schedule.live);
  const sandbox = durations("SIGIL_WEBHOOK_SCHEDULE_SANDBOX", env.SIGIL_WEBHOOK_SCHEDULE_SANDBOX, d.schedule.sandbox);
  if (!live.length || !sandbox.length) throw new Error("a webhook retry schedule needs at least one attempt");
  return {
    schedule: { live, sandbox },
    requestTimeoutMs: int("SIGIL_WEBHOOK_TIMEOUT_MS", d.requestTimeoutMs, env),
    concurrencyPerEndpoint: concurrency,
    retryAfterMaxMs: int("SIGIL_WEBHOOK_RETRY_AFTER_MAX_MS", d.retryAfterMaxMs, env),
    disableAfterFailingMs: {
      live: int("SIGIL_WEBHOOK_DISABLE_AFTER_MS_LIVE", d.disableAfterFailingMs.live, env),
      sandbox: int("SIGIL_WEBHOOK_DISABLE_AFTER_MS_SANDBOX", d.disableAfterFailingMs.sandbox, env),
    },
    dispatcherPollMs: int("SIGIL_WEBHOOK_DISPATCHER_POLL_MS", d.dispatcherPollMs, env),
    orphanAfterMs: int("SIGIL_WEBHOOK_ORPHAN_AFTER_MS", d.orphanAfterMs, env),
  };
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
    webhooks: webhookSettings(env),
  };
}
