import type { Config } from "./config.js";
import { runStatePath, type RunState } from "./infra/run-state.js";
import { devMailboxDir } from "./messaging/mail.js";
import { devSmsOutboxDir } from "./messaging/sms.js";

/** What a started runtime resolved: the addresses it actually uses (embedded or configured). */
export interface StartedRuntime {
  port: number | undefined;
  databaseUrl: string;
  temporalAddress: string;
  temporalUiUrl: string | undefined;
  /** A worker-only process's /metrics, /livez and /readyz port (SIGIL_WORKER_PORT). */
  workerPort?: number | undefined;
}

/** The origin local tools reach a listener on: a wildcard listen address is reached on loopback. */
function localOrigin(host: string, port: number): string {
  const h = host === "" || host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  return `http://${h.includes(":") ? `[${h}]` : h}:${port}`;
}

/** run.json's content for a dev runtime that serves the API (./infra/run-state.ts). */
export function runStateOf(config: Config, rt: StartedRuntime & { port: number }, startedAt: Date): RunState {
  const baseUrl = localOrigin(config.host, rt.port);
  return {
    version: 1,
    pid: process.pid,
    startedAt: startedAt.toISOString(),
    dataDir: config.dataDir,
    baseUrl,
    apiUrl: `${baseUrl}/api/v0`,
    grpcAddress: new URL(baseUrl).host,
    publicUrl: config.publicUrl,
    postgresUrl: rt.databaseUrl,
    redisUrl: config.redisUrl ?? null,
    temporalAddress: rt.temporalAddress,
    temporalNamespace: config.temporalNamespace,
    temporalUiUrl: rt.temporalUiUrl ?? null,
    mailboxDir: config.verifications.smtpUrl ? null : devMailboxDir(config.dataDir),
    smsOutboxDir: config.verifications.smsApiUrl ? null : devSmsOutboxDir(config.dataDir),
  };
}

/** host:port of a URL, never its user or password. */
function hostPort(url: string, defaultPort: number): string {
  const u = new URL(url);
  return `${u.hostname.includes(":") ? `[${u.hostname}]` : u.hostname}:${u.port || defaultPort}`;
}

/**
 * What `npm start` prints once it is ready: where the service listens and where each part it uses lives, so
 * that a person can find the data, the database, Temporal and the dev outboxes without reading the code.
 * Addresses only: no password, token or key (URLs are cut down to host and port).
 */
export function startBanner(config: Config, rt: StartedRuntime, mode: "dev" | "api" | "worker"): string[] {
  const lines: string[] = [""];
  if (rt.port !== undefined) {
    lines.push(`Sigil is running: http://localhost:${rt.port}  (REST under /api/v0, gRPC and Connect on the same port)`);
    lines.push(`Health:       http://localhost:${rt.port}/healthz  (probes /livez and /readyz, metrics /metrics)`);
    lines.push(`API docs:     http://localhost:${rt.port}/docs  (the OpenAPI document: /openapi.json)`);
  }
  if (rt.workerPort !== undefined) lines.push(`Worker:       http://localhost:${rt.workerPort}/metrics  (probes /livez and /readyz; SIGIL_WORKER_PORT)`);
  const runFile = mode === "dev" && rt.port !== undefined ? `  (other terminals find this service through ${runStatePath(config.dataDir)})` : "";
  lines.push(`Data dir:     ${config.dataDir}${runFile}`);
  const database = decodeURIComponent(new URL(rt.databaseUrl).pathname.slice(1)) || "postgres";
  lines.push(`Postgres:     ${hostPort(rt.databaseUrl, 5432)}, database ${database} (${config.databaseUrl ? "DATABASE_URL" : "embedded"})`);
  const ui = rt.temporalUiUrl ? `, UI ${rt.temporalUiUrl}` : "";
  lines.push(`Temporal:     ${rt.temporalAddress}, namespace ${config.temporalNamespace} (${config.temporalAddress ? "TEMPORAL_ADDRESS" : "dev server"})${ui}`);
  lines.push(`Store:        ${config.redisUrl ? `Redis ${hostPort(config.redisUrl, 6379)} (REDIS_URL)` : "in-process (one process only; REDIS_URL unset)"}`);
  const { smtpUrl, smsApiUrl } = config.verifications;
  lines.push(`Mail:         ${smtpUrl ? `SMTP ${hostPort(smtpUrl, smtpUrl.startsWith("smtps:") ? 465 : 587)} (SIGIL_SMTP_URL)` : `dev mailbox ${devMailboxDir(config.dataDir)} (SIGIL_SMTP_URL unset)`}`);
  lines.push(`SMS:          ${smsApiUrl ? `gateway ${new URL(smsApiUrl).origin} (SIGIL_SMS_API_URL)` : `dev outbox ${devSmsOutboxDir(config.dataDir)} (SIGIL_SMS_API_URL unset)`}`);
  if (mode === "dev") lines.push("Create a tenant and an API token: npx sigil bootstrap --json");
  if (mode === "dev" && rt.port !== undefined)
    lines.push(`Demo app:     http://localhost:${rt.port}/demo/?environmentId=<environmentId of the bootstrap>  (sign-ins, TOTP, a threshold wallet)`);
  lines.push("");
  return lines;
}
