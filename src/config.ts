import path from "node:path";
import { chainSettings, type ChainSettings } from "./config-chains.js";
import { rampSettings, type RampSettings } from "./config-ramps.js";
import type { LogFormat } from "./log.js";
import { allowHosts, bool, durations, httpUrl, int, loopbackPort, sealingKeys, trustedProxies } from "./config-values.js";

/** Where spans go (OTLP over HTTP with protobuf bodies). */
export interface TracingSettings {
  tracesUrl: string;
}

/**
 * The standard OpenTelemetry variables: the traces endpoint is used as is, the general one gets the
 * signal's path (/v1/traces), as every OTLP exporter does. The other OTEL_* variables (service name,
 * resource attributes, headers, sampler, batch sizes) are read by the SDK itself.
 */
function tracingSettings(env: NodeJS.ProcessEnv): TracingSettings | undefined {
  if ((env.OTEL_SDK_DISABLED ?? "").trim().toLowerCase() === "true") return undefined;
  const traces = httpUrl("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", env);
  if (traces) return { tracesUrl: traces };
  const base = httpUrl("OTEL_EXPORTER_OTLP_ENDPOINT", env);
  return base ? { tracesUrl: `${base.replace(/\/+$/, "")}/v1/traces` } : undefined;
}

/**
 * Every setting of Sigil, read from the environment once and validated. Unset external addresses
 * (DATABASE_URL, REDIS_URL, TEMPORAL_ADDRESS) select the embedded defaults. What each variable means, its
 * values and its default are in src/config-reference.ts, which docs/configuration.md is generated from; a
 * variable read here and missing there fails test/architecture/config-reference.test.ts.
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
  /**
   * SIGIL_DIRECT_UNARY (default true): unary calls over Connect and gRPC are answered by
   * src/server/direct-unary/; false hands every RPC to connect-node's own protocol handlers (the same
   * interceptors and handlers either way).
   */
  directUnary: boolean;
  /**
   * SIGIL_MIGRATE_ON_START (default true): a start applies the pending migrations (under an advisory lock, so
   * replicas starting together apply each once). false: the start only checks that none is pending and
   * refuses otherwise; the migrations are run once by `sigil migrate` (the Helm chart's migration Job).
   */
  migrateOnStart: boolean;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /**
   * SIGIL_LOG_FORMAT: json (one JSON object a line, for log collectors) or pretty (one readable line, for a
   * terminal). Unset: pretty when stdout is a terminal, else json.
   */
  logFormat?: LogFormat;
  /**
   * On when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set and OTEL_SDK_DISABLED is
   * not true: spans go over OTLP http/protobuf to `tracesUrl` (src/infra/tracing.ts). Off: no SDK at all.
   */
  tracing?: TracingSettings;
  /**
   * SIGIL_METRICS (on/off, default on): off stops everything /metrics collects as the process runs (request,
   * sign-in, webhook and workflow counters, Node's process metrics, the Temporal worker core's exporter); the
   * scrape then has only the gauges read when it is asked. What the benchmark turns off to measure their cost.
   */
  metricsEnabled: boolean;
  /**
   * SIGIL_WORKER_PORT (default 9091, 0 = off): a worker-only process (`sigil start worker`) serves /metrics,
   * /livez and /readyz on this port, bound to HOST (src/observability/worker-listener.ts).
   */
  workerPort: number;
  webhooks: WebhookSettings;
  /** Bounds of the public SDK publish-events operation (src/domain/events/publish-limits.ts). */
  sdkEvents: SdkEventLimits;
  /**
   * SIGIL_CORS_ORIGIN_CACHE_MS (default 5000): how long an api process reuses an environment's registered
   * origins for the CORS answers of /api/v0/sdk/{environmentId}/... (src/server/sdk-origins.ts); an origin
   * added or removed takes effect on every process within this time.
   */
  corsOriginCacheMs: number;
  /** One-time codes by e-mail and SMS: where they are sent, how often (src/domain/verifications, src/messaging). */
  verifications: VerificationSettings;
  /** Limits of the SDK surface per client address (src/rpc/interceptors/rate-limit.ts); 0 = unbounded. */
  sdkRateLimits: SdkRateLimits;
  /**
   * SIGIL_TRUSTED_PROXIES (CIDRs or addresses, comma-separated; default none): the load balancers in front
   * of the api. A request whose socket peer is one of them has its client address read from
   * X-Forwarded-For (the right-most entry that is not itself a trusted proxy); any other request's client
   * address is its socket peer, whatever it sends (src/server/client-address.ts). Rate limits, sessions'
   * and audit rows' addresses all use that one address.
   */
  trustedProxies: string[];
  /**
   * SIGIL_SESSION_MAX_AGE_SECONDS (default 2592000, 30 days; at least 60): an end-user session's absolute
   * lifetime from its sign-in. Refreshing rotates the session's token but never moves this end: past it a
   * refresh is refused (401 session_expired) and the user signs in again (src/domain/sessions/refresh.ts).
   */
  sessionMaxAgeSeconds: number;
  /** Sign-in with an external identity provider's JWT and with a decentralized-social account. */
  externalSignIn: ExternalSignInSettings;
  /** Where key-share backups go besides the service itself (src/adapters/cloud-drive.ts, src/domain/waas/threshold/backup-vault.ts). */
  backups: BackupSettings;
  /** The worker's reconciler of work whose durable flow never started (src/domain/reconciler.ts). */
  reconciler: ReconcilerSettings;
  /** Chain nodes: operator default RPC URLs and the bounds of every call (src/adapters/chain-nodes.ts). */
  chains: ChainSettings;
  /** The price source and the on-ramp / off-ramp provider (src/adapters/price-source.ts, ramp-provider.ts). */
  ramps: RampSettings;
  /** An error an RPC answers that its proto does not declare (src/rpc/undeclared-errors.ts). */
  undeclaredErrors?: UndeclaredErrorSettings;
}

/**
 * Every error code an RPC answers is declared on it (sigil.options.v0.method errors, plus what its rules
 * imply: src/rpc/declared-errors.ts), so that the published contract is the code's. An undeclared one is a
 * defect of the declaration, found by the tests rather than by a client.
 */
export interface UndeclaredErrorSettings {
  /**
   * SIGIL_UNDECLARED_ERRORS: `warn` (default; production) answers the error as thrown and logs a warning
   * once per RPC and code; `enforce` (what the test run sets) answers 500 undeclared_error instead, naming the
   * code, status and RPC, so the test that reached it fails.
   */
  enforce: boolean;
  /**
   * SIGIL_UNDECLARED_ERRORS_LOG (default unset): a file each undeclared (RPC, code, status) is appended to as
   * a JSON line, once per process, in either mode: the test run fails when it has any, and
   * `npm run errors:declare` writes a recorded run's lines into the protos.
   */
  logFile?: string;
}

export function undeclaredErrorSettings(env: NodeJS.ProcessEnv = process.env): UndeclaredErrorSettings {
  const mode = env.SIGIL_UNDECLARED_ERRORS || "warn";
  if (mode !== "warn" && mode !== "enforce") throw new Error(`SIGIL_UNDECLARED_ERRORS ${mode} is unknown: expected warn or enforce`);
  return { enforce: mode === "enforce", ...(env.SIGIL_UNDECLARED_ERRORS_LOG ? { logFile: env.SIGIL_UNDECLARED_ERRORS_LOG } : {}) };
}

export interface ReconcilerSettings {
  /** SIGIL_RECONCILE_INTERVAL_MS (default 15000): how often the worker looks for work left unstarted. */
  intervalMs: number;
  /**
   * SIGIL_RECONCILE_STALE_MS (default 30000): a room still without an outcome this long after its
   * contribution, or an export still pending this long after it was stored, is stale (handed over again, and
   * counted in /metrics).
   */
  staleMs: number;
}

export const DEFAULT_RECONCILER_SETTINGS: ReconcilerSettings = { intervalMs: 15_000, staleMs: 30_000 };

export interface BackupSettings {
  /**
   * SIGIL_BACKUP_SEALING_KEYS ("id:base64key,...", like SIGIL_SEALING_KEYS): the keys that seal the backups
   * the service keeps itself, separate from the sealing keys so that one leaked key does not open both a
   * server share and its backup. Unset: generated once into <dataDir>/backup-sealing.key.
   */
  sealingKeys: { id: string; key: Buffer }[];
  /** SIGIL_CLOUD_DRIVE_URL (default https://www.googleapis.com): base URL of the cloud drive's REST API. */
  cloudDriveUrl: string;
}

export interface ExternalSignInSettings {
  /**
   * SIGIL_EXTERNAL_JWKS_COOLDOWN_MS (default 30000): after fetching an environment's external JWKS, how long
   * before a token naming an unknown key id may fetch it again (src/domain/external-jwt/verify.ts).
   */
  jwksCooldownMs: number;
  /**
   * SIGIL_EXTERNAL_JWKS_MAX_AGE_MS (default 600000): how long a fetched external JWKS is used before it is
   * fetched again, so how long a key the provider removed still verifies.
   */
  jwksMaxAgeMs: number;
  /**
   * SIGIL_SOCIAL_HUB_URL: base URL of the decentralized-social network's hub HTTP API, which says which
   * custody address holds an account (src/adapters/social-hub.ts). Unset: that sign-in is off.
   */
  socialHubUrl: string | undefined;
}

export const DEFAULT_EXTERNAL_SIGN_IN_SETTINGS: ExternalSignInSettings = { jwksCooldownMs: 30_000, jwksMaxAgeMs: 600_000, socialHubUrl: undefined };

/** Requests per client address (the socket peer, or the trusted proxies' forwarded one) to the SDK surface. */
export interface SdkRateLimits {
  /** SIGIL_SDK_RATE_LIMIT_PER_10S: every SDK call (public or signed in), per 10 seconds. */
  perAddressPer10s: number;
  /** SIGIL_SIGN_IN_RATE_LIMIT_PER_MINUTE: sign-in calls (RATE_LIMIT_SIGN_IN), per minute. */
  signInPerAddressPerMinute: number;
}

export const DEFAULT_SDK_RATE_LIMITS: SdkRateLimits = { perAddressPer10s: 60, signInPerAddressPerMinute: 10 };

export const DEFAULT_SESSION_MAX_AGE_SECONDS = 30 * 24 * 3600;

function sessionMaxAge(env: NodeJS.ProcessEnv): number {
  const seconds = int("SIGIL_SESSION_MAX_AGE_SECONDS", DEFAULT_SESSION_MAX_AGE_SECONDS, env);
  if (seconds < 60) throw new Error(`SIGIL_SESSION_MAX_AGE_SECONDS must be at least 60, got ${seconds}`);
  return seconds;
}

/** Requests per minute to POST /sdk/{environmentId}/events; 0 = unbounded. */
export interface SdkEventLimits {
  /** SIGIL_SDK_EVENTS_PER_ADDRESS_PER_MINUTE: per client address. */
  perAddressPerMinute: number;
  /** SIGIL_SDK_EVENTS_PER_ENVIRONMENT_PER_MINUTE: per environment, all addresses together. */
  perEnvironmentPerMinute: number;
}

export const DEFAULT_SDK_EVENT_LIMITS: SdkEventLimits = { perAddressPerMinute: 60, perEnvironmentPerMinute: 600 };

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
  /**
   * Concurrent requests of one environment (tenant) at most, over all its endpoints (slots in the store):
   * one tenant's slow or black-holed endpoints cannot take every delivery slot of the workers.
   */
  concurrencyPerEnvironment: number;
  /**
   * Delivery workflows the dispatcher keeps running per environment, and per endpoint; further messages wait
   * pending in Postgres (durably) and start, oldest first and round-robin across environments, as earlier
   * ones finish. This bounds the load one tenant's fan-out puts on Temporal.
   */
  maxRunningPerEnvironment: number;
  maxRunningPerEndpoint: number;
  /** Workflow-task and local-activity slots of a worker process's webhook worker (src/temporal/worker.ts). */
  deliverySlots: number;
  /** Retry-After of a 429/503 is honoured up to this long. */
  retryAfterMaxMs: number;
  /** An endpoint whose deliveries failed continuously for this long is disabled (reason `failing`). */
  disableAfterFailingMs: { live: number; sandbox: number };
  /** How often the outbox dispatcher polls besides LISTEN/NOTIFY. */
  dispatcherPollMs: number;
  /** A pending message whose workflow never ran is (re)started after this long. */
  orphanAfterMs: number;
  /**
   * SIGIL_WEBHOOK_ALLOW_HOSTS: host names, IP addresses and CIDR ranges the operator trusts as webhook
   * destinations in every environment, beyond the public internet (src/net/destination-policy.ts).
   */
  allowHosts: string[];
  /** SIGIL_WEBHOOK_SANDBOX_LOOPBACK: sandbox webhooks may target loopback (a developer's machine). */
  sandboxLoopback: boolean;
  /** The service's own ports, never a webhook destination on loopback (filled in by loadConfig). */
  protectedPorts: number[];
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
  concurrencyPerEnvironment: 10,
  maxRunningPerEnvironment: 200,
  maxRunningPerEndpoint: 50,
  deliverySlots: 200,
  retryAfterMaxMs: 10 * MINUTE,
  disableAfterFailingMs: { live: 5 * 24 * HOUR, sandbox: 24 * HOUR },
  dispatcherPollMs: 2 * SECOND,
  orphanAfterMs: 10 * SECOND,
  allowHosts: [],
  sandboxLoopback: true,
  protectedPorts: [],
};

function webhookSettings(env: NodeJS.ProcessEnv): WebhookSettings {
  const d = DEFAULT_WEBHOOK_SETTINGS;
  const concurrency = int("SIGIL_WEBHOOK_CONCURRENCY_PER_ENDPOINT", d.concurrencyPerEndpoint, env);
  if (concurrency < 1) throw new Error("SIGIL_WEBHOOK_CONCURRENCY_PER_ENDPOINT must be at least 1");
  const atLeastOne = (name: string, fallback: number) => {
    const n = int(name, fallback, env);
    if (n < 1) throw new Error(`${name} must be at least 1`);
    return n;
  };
  const live = durations("SIGIL_WEBHOOK_SCHEDULE_LIVE", env.SIGIL_WEBHOOK_SCHEDULE_LIVE, d.schedule.live);
  const sandbox = durations("SIGIL_WEBHOOK_SCHEDULE_SANDBOX", env.SIGIL_WEBHOOK_SCHEDULE_SANDBOX, d.schedule.sandbox);
  if (!live.length || !sandbox.length) throw new Error("a webhook retry schedule needs at least one attempt");
  return {
    schedule: { live, sandbox },
    requestTimeoutMs: int("SIGIL_WEBHOOK_TIMEOUT_MS", d.requestTimeoutMs, env),
    concurrencyPerEndpoint: concurrency,
    concurrencyPerEnvironment: atLeastOne("SIGIL_WEBHOOK_CONCURRENCY_PER_ENVIRONMENT", d.concurrencyPerEnvironment),
    maxRunningPerEnvironment: atLeastOne("SIGIL_WEBHOOK_MAX_RUNNING_PER_ENVIRONMENT", d.maxRunningPerEnvironment),
    maxRunningPerEndpoint: atLeastOne("SIGIL_WEBHOOK_MAX_RUNNING_PER_ENDPOINT", d.maxRunningPerEndpoint),
    deliverySlots: atLeastOne("SIGIL_WEBHOOK_DELIVERY_SLOTS", d.deliverySlots),
    retryAfterMaxMs: int("SIGIL_WEBHOOK_RETRY_AFTER_MAX_MS", d.retryAfterMaxMs, env),
    disableAfterFailingMs: {
      live: int("SIGIL_WEBHOOK_DISABLE_AFTER_MS_LIVE", d.disableAfterFailingMs.live, env),
      sandbox: int("SIGIL_WEBHOOK_DISABLE_AFTER_MS_SANDBOX", d.disableAfterFailingMs.sandbox, env),
    },
    dispatcherPollMs: int("SIGIL_WEBHOOK_DISPATCHER_POLL_MS", d.dispatcherPollMs, env),
    orphanAfterMs: int("SIGIL_WEBHOOK_ORPHAN_AFTER_MS", d.orphanAfterMs, env),
    allowHosts: allowHosts(env.SIGIL_WEBHOOK_ALLOW_HOSTS),
    sandboxLoopback: bool("SIGIL_WEBHOOK_SANDBOX_LOOPBACK", d.sandboxLoopback, env),
    protectedPorts: [],
  };
}

/**
 * Ports of the service itself that a webhook must never reach on loopback: the API, the worker's listener, the embedded Postgres
 * and Temporal dev server (frontend and UI) when this process runs them, and the external Postgres, Redis
 * and Temporal when they listen on loopback.
 */
function ownPorts(c: Pick<Config, "port" | "workerPort" | "databaseUrl" | "redisUrl" | "temporalAddress" | "embeddedPostgresPort" | "embeddedTemporalPort">): number[] {
  const ports = [c.port, c.workerPort];
  if (!c.databaseUrl) ports.push(c.embeddedPostgresPort);
  if (!c.temporalAddress) ports.push(c.embeddedTemporalPort, c.embeddedTemporalPort + 1000);
  for (const [url, fallback] of [[c.databaseUrl, 5432], [c.redisUrl, 6379], [c.temporalAddress && `grpc://${c.temporalAddress}`, 7233]] as const) {
    const port = url ? loopbackPort(url, fallback) : null;
    if (port) ports.push(port);
  }
  return [...new Set(ports.filter((p) => p > 0))];
}

export interface VerificationSettings {
  /**
   * SIGIL_SMTP_URL, e.g. smtp://user:pass@host:587 (STARTTLS when the server offers it) or smtps://...:465.
   * Unset: mails go to the dev mailbox, one .eml file each under <dataDir>/mailbox.
   */
  smtpUrl: string | undefined;
  /** SIGIL_MAIL_FROM: the From of the mails. */
  mailFrom: string;
  /**
   * SIGIL_SMS_API_URL: base URL of the SMS gateway's Messages API (POST {base}/Accounts/{sid}/Messages.json).
   * Unset: SMS go to the dev outbox, one .json file each under <dataDir>/sms-outbox.
   */
  smsApiUrl: string | undefined;
  /** SIGIL_CODE_SENDS_PER_MINUTE (default 3; 0 = unbounded): code creations and retries per e-mail or phone. */
  sendsPerIdentifierPerMinute: number;
  /**
   * SIGIL_CODE_FAILURES_PER_IDENTIFIER_PER_DAY (default 20; 0 = unbounded): wrong codes per e-mail or phone
   * and UTC day, across all its verifications (sign-in, adding it, the e-mail second factor); then 429.
   */
  failuresPerIdentifierPerDay: number;
  /**
   * SIGIL_SMS_PER_ENVIRONMENT_PER_HOUR (default 100) and SIGIL_SMS_PER_ENVIRONMENT_PER_DAY (default 1000);
   * 0 = unbounded: SMS codes one environment sends, whatever the numbers (SMS pumping); then 429.
   */
  smsPerEnvironmentPerHour: number;
  smsPerEnvironmentPerDay: number;
}

export const DEFAULT_VERIFICATION_SETTINGS: VerificationSettings = {
  smtpUrl: undefined,
  mailFrom: "Sigil <no-reply@localhost>",
  smsApiUrl: undefined,
  sendsPerIdentifierPerMinute: 3,
  failuresPerIdentifierPerDay: 20,
  smsPerEnvironmentPerHour: 100,
  smsPerEnvironmentPerDay: 1000,
};

function verificationSettings(env: NodeJS.ProcessEnv): VerificationSettings {
  const url = (name: string, schemes: string[]) => {
    const raw = env[name]?.trim();
    if (!raw) return undefined;
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new Error(`${name} must be a URL, got ${JSON.stringify(raw)}`);
    }
    if (!schemes.includes(u.protocol)) throw new Error(`${name} must be a ${schemes.join(" or ")} URL`);
    return raw.replace(/\/$/, "");
  };
  return {
    smtpUrl: url("SIGIL_SMTP_URL", ["smtp:", "smtps:"]),
    mailFrom: env.SIGIL_MAIL_FROM?.trim() || DEFAULT_VERIFICATION_SETTINGS.mailFrom,
    smsApiUrl: url("SIGIL_SMS_API_URL", ["http:", "https:"]),
    sendsPerIdentifierPerMinute: int("SIGIL_CODE_SENDS_PER_MINUTE", DEFAULT_VERIFICATION_SETTINGS.sendsPerIdentifierPerMinute, env),
    failuresPerIdentifierPerDay: int("SIGIL_CODE_FAILURES_PER_IDENTIFIER_PER_DAY", DEFAULT_VERIFICATION_SETTINGS.failuresPerIdentifierPerDay, env),
    smsPerEnvironmentPerHour: int("SIGIL_SMS_PER_ENVIRONMENT_PER_HOUR", DEFAULT_VERIFICATION_SETTINGS.smsPerEnvironmentPerHour, env),
    smsPerEnvironmentPerDay: int("SIGIL_SMS_PER_ENVIRONMENT_PER_DAY", DEFAULT_VERIFICATION_SETTINGS.smsPerEnvironmentPerDay, env),
  };
}

function tcpPort(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const port = int(name, fallback, env);
  if (port > 65535) throw new Error(`${name} must be a TCP port (0-65535), got ${port}`);
  return port;
}

/** SIGIL_DATA_DIR (default ./data, from the current directory), absolute. */
export function dataDirOf(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.SIGIL_DATA_DIR || "data");
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int("PORT", 8080, env);
  const host = env.HOST || "127.0.0.1";
  const dataDir = dataDirOf(env);
  const logLevel = (env.LOG_LEVEL || "info") as Config["logLevel"];
  if (!["debug", "info", "warn", "error", "silent"].includes(logLevel)) throw new Error(`LOG_LEVEL ${logLevel} is unknown`);
  const logFormat = (env.SIGIL_LOG_FORMAT || (process.stdout.isTTY ? "pretty" : "json")) as LogFormat;
  if (!["json", "pretty"].includes(logFormat)) throw new Error(`SIGIL_LOG_FORMAT ${logFormat} is unknown: expected json or pretty`);
  const config: Config = {
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
    directUnary: bool("SIGIL_DIRECT_UNARY", true, env),
    migrateOnStart: bool("SIGIL_MIGRATE_ON_START", true, env),
    logLevel,
    logFormat,
    tracing: tracingSettings(env),
    metricsEnabled: bool("SIGIL_METRICS", true, env),
    workerPort: tcpPort("SIGIL_WORKER_PORT", 9091, env),
    webhooks: webhookSettings(env),
    sdkRateLimits: {
      perAddressPer10s: int("SIGIL_SDK_RATE_LIMIT_PER_10S", DEFAULT_SDK_RATE_LIMITS.perAddressPer10s, env),
      signInPerAddressPerMinute: int("SIGIL_SIGN_IN_RATE_LIMIT_PER_MINUTE", DEFAULT_SDK_RATE_LIMITS.signInPerAddressPerMinute, env),
    },
    sdkEvents: {
      perAddressPerMinute: int("SIGIL_SDK_EVENTS_PER_ADDRESS_PER_MINUTE", DEFAULT_SDK_EVENT_LIMITS.perAddressPerMinute, env),
      perEnvironmentPerMinute: int("SIGIL_SDK_EVENTS_PER_ENVIRONMENT_PER_MINUTE", DEFAULT_SDK_EVENT_LIMITS.perEnvironmentPerMinute, env),
    },
    corsOriginCacheMs: int("SIGIL_CORS_ORIGIN_CACHE_MS", 5000, env),
    sessionMaxAgeSeconds: sessionMaxAge(env),
    trustedProxies: trustedProxies(env.SIGIL_TRUSTED_PROXIES),
    verifications: verificationSettings(env),
    externalSignIn: {
      jwksCooldownMs: int("SIGIL_EXTERNAL_JWKS_COOLDOWN_MS", DEFAULT_EXTERNAL_SIGN_IN_SETTINGS.jwksCooldownMs, env),
      jwksMaxAgeMs: int("SIGIL_EXTERNAL_JWKS_MAX_AGE_MS", DEFAULT_EXTERNAL_SIGN_IN_SETTINGS.jwksMaxAgeMs, env),
      socialHubUrl: httpUrl("SIGIL_SOCIAL_HUB_URL", env),
    },
    backups: {
      sealingKeys: sealingKeys(env, dataDir, "SIGIL_BACKUP_SEALING_KEYS", "backup-sealing.key"),
      cloudDriveUrl: httpUrl("SIGIL_CLOUD_DRIVE_URL", env) ?? "https://www.googleapis.com",
    },
    reconciler: {
      intervalMs: int("SIGIL_RECONCILE_INTERVAL_MS", DEFAULT_RECONCILER_SETTINGS.intervalMs, env),
      staleMs: int("SIGIL_RECONCILE_STALE_MS", DEFAULT_RECONCILER_SETTINGS.staleMs, env),
    },
    chains: chainSettings(env),
    ramps: rampSettings(env),
    undeclaredErrors: undeclaredErrorSettings(env),
  };
  config.webhooks.protectedPorts = ownPorts(config);
  return config;
}
