import { connect as tcpConnect } from "node:net";
import { Connection } from "@temporalio/client";
import { loadConfig, type Config } from "../config.js";
import { closeDatabase, connectDatabase } from "../db/db.js";
import { listMigrations, pendingMigrations } from "../db/migrate.js";
import { lookUpRun } from "../infra/run-state.js";
import { missingProductionSettings } from "../production-roles.js";
import { createStore } from "../store/store.js";
import { taskQueues } from "../temporal/ids.js";
import { SEARCH_ATTRIBUTES } from "../workflows/search-attributes.js";
import { parseCommand } from "./args.js";
import { printResult, usageError } from "./output.js";
import { CONNECT_TIMEOUT_MS } from "./services.js";
import { withTimeout } from "../infra/timeout.js";
import { temporalTarget } from "./services.js";

export const DOCTOR_USAGE = `usage: sigil doctor [--role dev|production] [--json]

  Checks the configuration and every dependency (Postgres and its migrations, Redis, Temporal with its
  namespace and workers, mail and SMS) and says what to fix. Exits 1 when a check fails.
  --role   what to check the settings for: production (sigil start api / worker) or dev (npm start).
           Default: production when DATABASE_URL, REDIS_URL or TEMPORAL_ADDRESS is set, else dev.`;

export type CheckStatus = "ok" | "warn" | "fail";

export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
  /** What to do about a warn or fail. */
  fix?: string;
}

type Role = "dev" | "production";

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).split("\n")[0]!;

/** Passwords never reach the terminal (doctor output gets pasted into tickets). */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return url;
  }
}

function configurationChecks(env: NodeJS.ProcessEnv, role: Role): { checks: Check[]; config?: Config } {
  const checks: Check[] = [];
  if (role === "production") {
    const missing = missingProductionSettings(env);
    checks.push(
      missing.length
        ? { name: "production settings", status: "fail", detail: `missing: ${missing.join("; ")}`, fix: "set them (docs/runbook.md); the api and worker roles refuse to start without them" }
        : { name: "production settings", status: "ok", detail: "DATABASE_URL, REDIS_URL, TEMPORAL_ADDRESS and both sealing key sets are set" },
    );
  }
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (err) {
    checks.push({ name: "configuration", status: "fail", detail: message(err), fix: "correct the setting named above" });
    return { checks };
  }
  checks.push({ name: "configuration", status: "ok", detail: "every setting parses" });
  checks.push(sealingKeyCheck(env, config, role));
  checks.push(publicUrlCheck(env, config, role));
  return { checks, config };
}

function sealingKeyCheck(env: NodeJS.ProcessEnv, config: Config, role: Role): Check {
  const ids = config.sealingKeys.map((k) => k.id);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate) return { name: "sealing keys", status: "fail", detail: `key id ${duplicate} appears twice in SIGIL_SEALING_KEYS`, fix: "give every key its own id" };
  const shared = config.sealingKeys.some((k) => config.backups.sealingKeys.some((b) => b.key.equals(k.key)));
  if (shared)
    return {
      name: "sealing keys",
      status: "fail",
      detail: "a key of SIGIL_BACKUP_SEALING_KEYS is also a key of SIGIL_SEALING_KEYS",
      fix: "the backups the service keeps need keys of their own: generate one with `openssl rand -base64 32`",
    };
  const from = env.SIGIL_SEALING_KEYS ? "SIGIL_SEALING_KEYS" : `${config.dataDir}/sealing.key`;
  const detail = `${config.sealingKeys.length} key${config.sealingKeys.length === 1 ? "" : "s"} (sealing with ${ids[0]}) from ${from}; ${config.backups.sealingKeys.length} backup key(s)`;
  if (role === "production" && !env.SIGIL_SEALING_KEYS) return { name: "sealing keys", status: "fail", detail, fix: "set SIGIL_SEALING_KEYS (id:base64 of 32 bytes): every process must share the keys" };
  return { name: "sealing keys", status: "ok", detail };
}

function publicUrlCheck(env: NodeJS.ProcessEnv, config: Config, role: Role): Check {
  const url = new URL(config.publicUrl);
  const local = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  if (role === "production" && !env.PUBLIC_URL)
    return { name: "PUBLIC_URL", status: "warn", detail: `unset: links and OAuth redirect URIs use ${config.publicUrl}`, fix: "set PUBLIC_URL to the origin clients reach Sigil at (https://id.example.com)" };
  if (role === "production" && url.protocol !== "https:" && !local)
    return { name: "PUBLIC_URL", status: "warn", detail: `${config.publicUrl} is not https`, fix: "serve Sigil over https (behind a TLS-terminating proxy) and set PUBLIC_URL to that origin" };
  const running = role === "dev" ? runningDev(config) : undefined;
  return { name: "PUBLIC_URL", status: "ok", detail: running ? `${running.publicUrl} (the running npm start's)` : config.publicUrl };
}

/** Where the running `npm start` of the data dir is, for the dependencies left to their embedded defaults. */
function runningDev(config: Config) {
  const run = lookUpRun(config.dataDir);
  return run.status === "running" ? run.state : undefined;
}

/**
 * The pool waits CONNECT_TIMEOUT_MS (3 s) for a connection, what a request may wait; a busy server can take
 * longer to accept one. Doctor is not a request: a timeout is tried again (refusals and bad logins are not).
 */
async function firstAnswer<T>(query: () => Promise<T>, tries = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await query();
    } catch (err) {
      if (attempt >= tries || !/timeout/i.test(message(err))) throw err;
    }
  }
}

async function postgresChecks(config: Config): Promise<Check[]> {
  const url = config.databaseUrl ?? runningDev(config)?.postgresUrl;
  if (!url)
    return [{ name: "postgres", status: "warn", detail: `no DATABASE_URL and no running \`npm start\` on ${config.dataDir}`, fix: "set DATABASE_URL, or start Sigil (npm start), which runs the embedded Postgres" }];
  const db = connectDatabase(url, { max: 1 });
  try {
    const row = await firstAnswer(() => db.one<{ version: string }>("SELECT current_setting('server_version') AS version"));
    const checks: Check[] = [{ name: "postgres", status: "ok", detail: `${redact(url)} (server ${row.version})` }];
    const pending = await pendingMigrations(db);
    checks.push(
      pending.length
        ? { name: "migrations", status: "fail", detail: `${pending.length} pending: ${pending.join(", ")}`, fix: "run `sigil migrate` (or the chart's migration Job)" }
        : { name: "migrations", status: "ok", detail: `up to date (${listMigrations().length} applied)` },
    );
    return checks;
  } catch (err) {
    return [{ name: "postgres", status: "fail", detail: `${redact(url)}: ${message(err)}`, fix: "check that this Postgres runs and lets this user in (DATABASE_URL)" }];
  } finally {
    await closeDatabase(db);
  }
}

async function redisCheck(config: Config, role: Role): Promise<Check> {
  const url = config.redisUrl ?? runningDev(config)?.redisUrl ?? undefined;
  if (!url)
    return role === "production"
      ? { name: "redis", status: "fail", detail: "no REDIS_URL", fix: "set REDIS_URL: replicas must share rate limits, nonces and caches" }
      : { name: "redis", status: "ok", detail: "in-process store (one process only; set REDIS_URL to share it)" };
  try {
    const store = await createStore(url, { connectTimeoutMs: CONNECT_TIMEOUT_MS });
    try {
      if (!(await withTimeout(store.ping(), CONNECT_TIMEOUT_MS, "Redis did not answer"))) throw new Error("PING failed");
    } finally {
      await store.close();
    }
    return { name: "redis", status: "ok", detail: redact(url) };
  } catch (err) {
    return { name: "redis", status: "fail", detail: `${redact(url)}: ${message(err)}`, fix: "check that this Redis runs and accepts this URL (REDIS_URL)" };
  }
}

async function temporalChecks(config: Config): Promise<Check[]> {
  const target = temporalTarget(config);
  if (!target)
    return [{ name: "temporal", status: "warn", detail: `no TEMPORAL_ADDRESS and no running \`npm start\` on ${config.dataDir}`, fix: "set TEMPORAL_ADDRESS, or start Sigil (npm start), which runs the Temporal dev server" }];
  const { address, namespace } = target;
  let connection: Connection;
  try {
    connection = await Connection.connect({ address, connectTimeout: CONNECT_TIMEOUT_MS });
  } catch (err) {
    return [{ name: "temporal", status: "fail", detail: `${address}: ${message(err)}`, fix: "check that this Temporal frontend runs and is reachable (TEMPORAL_ADDRESS)" }];
  }
  const deadline = () => Date.now() + CONNECT_TIMEOUT_MS;
  try {
    const checks: Check[] = [{ name: "temporal", status: "ok", detail: address }];
    try {
      await connection.withDeadline(deadline(), () => connection.workflowService.describeNamespace({ namespace }));
      checks.push({ name: "temporal namespace", status: "ok", detail: namespace });
    } catch (err) {
      checks.push({ name: "temporal namespace", status: "fail", detail: `${namespace}: ${message(err)}`, fix: `create it (temporal operator namespace create ${namespace}) or set TEMPORAL_NAMESPACE` });
      return checks;
    }
    const attributes = await connection.withDeadline(deadline(), () => connection.operatorService.listSearchAttributes({ namespace }));
    const known = new Set(Object.keys({ ...attributes.customAttributes, ...attributes.systemAttributes }));
    const missing = Object.values(SEARCH_ATTRIBUTES).filter((a) => !known.has(a.name)).map((a) => a.name);
    checks.push(
      missing.length
        ? { name: "search attributes", status: "warn", detail: `missing: ${missing.join(", ")}`, fix: `a start registers them; or \`temporal operator search-attribute create --namespace ${namespace} --name ${missing[0]} --type Keyword\`` }
        : { name: "search attributes", status: "ok", detail: Object.values(SEARCH_ATTRIBUTES).map((a) => a.name).join(", ") },
    );
    for (const queue of Object.values(taskQueues(config.temporalTaskQueue))) {
      const res = await connection.withDeadline(deadline(), () =>
        connection.workflowService.describeTaskQueue({ namespace, taskQueue: { name: queue }, taskQueueType: 1 }),
      );
      checks.push(
        res.pollers.length
          ? { name: `worker on ${queue}`, status: "ok", detail: `${res.pollers.length} poller(s): ${res.pollers.map((p) => p.identity).join(", ")}` }
          : { name: `worker on ${queue}`, status: "fail", detail: "no worker polls this task queue", fix: "start `sigil start worker` (with the same TEMPORAL_TASK_QUEUE); until then workflows wait" },
      );
    }
    return checks;
  } catch (err) {
    return [{ name: "temporal", status: "fail", detail: `${address}: ${message(err)}`, fix: "check the Temporal frontend (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE)" }];
  } finally {
    await connection.close();
  }
}

/** Whether something listens at the URL's host and port (no protocol spoken: the check must send nothing). */
function reachable(url: URL, defaultPort: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host: url.hostname.replace(/^\[(.*)\]$/, "$1"), port: Number(url.port) || defaultPort, timeout: CONNECT_TIMEOUT_MS });
    socket.once("connect", () => {
      socket.destroy();
      resolve();
    });
    socket.once("timeout", () => {
      socket.destroy();
      reject(new Error(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`));
    });
    socket.once("error", reject);
  });
}

async function messagingChecks(config: Config, role: Role): Promise<Check[]> {
  const { smtpUrl, smsApiUrl } = config.verifications;
  const unset = role === "production" ? ("warn" as const) : ("ok" as const);
  const checks: Check[] = [];
  if (!smtpUrl) checks.push({ name: "mail", status: unset, detail: `no SIGIL_SMTP_URL: mails go to the dev mailbox under ${config.dataDir}`, ...(unset === "warn" ? { fix: "set SIGIL_SMTP_URL so users receive their codes" } : {}) });
  else {
    const url = new URL(smtpUrl);
    checks.push(
      await reachable(url, url.protocol === "smtps:" ? 465 : 587).then(
        (): Check => ({ name: "mail", status: "ok", detail: `SMTP server ${url.host} reachable` }),
        (err): Check => ({ name: "mail", status: "fail", detail: `SMTP server ${url.host}: ${message(err)}`, fix: "check SIGIL_SMTP_URL and that this host may reach it" }),
      ),
    );
  }
  if (!smsApiUrl) checks.push({ name: "sms", status: unset, detail: `no SIGIL_SMS_API_URL: SMS go to the dev outbox under ${config.dataDir}`, ...(unset === "warn" ? { fix: "set SIGIL_SMS_API_URL so users receive their codes" } : {}) });
  else {
    const url = new URL(smsApiUrl);
    checks.push(
      await reachable(url, url.protocol === "https:" ? 443 : 80).then(
        (): Check => ({ name: "sms", status: "ok", detail: `SMS gateway ${url.host} reachable` }),
        (err): Check => ({ name: "sms", status: "fail", detail: `SMS gateway ${url.host}: ${message(err)}`, fix: "check SIGIL_SMS_API_URL and that this host may reach it" }),
      ),
    );
  }
  return checks;
}

/** Runs every check; the dependencies side by side (each bounded by CONNECT_TIMEOUT_MS). */
export async function runDoctor(env: NodeJS.ProcessEnv, role: Role): Promise<Check[]> {
  const { checks, config } = configurationChecks(env, role);
  if (!config) return checks;
  const groups = await Promise.all([postgresChecks(config), redisCheck(config, role).then((c) => [c]), temporalChecks(config), messagingChecks(config, role)]);
  return [...checks, ...groups.flat()];
}

const MARK: Record<CheckStatus, string> = { ok: "ok  ", warn: "warn", fail: "FAIL" };

export function formatChecks(checks: readonly Check[]): string {
  const width = Math.max(...checks.map((c) => c.name.length));
  const lines = checks.map((c) => `${MARK[c.status]}  ${c.name.padEnd(width)}  ${c.detail}${c.fix ? `\n      ${" ".repeat(width)}  fix: ${c.fix}` : ""}`);
  const failed = checks.filter((c) => c.status === "fail").length;
  const warned = checks.filter((c) => c.status === "warn").length;
  lines.push("", failed ? `${failed} check(s) failed, ${warned} warning(s)` : warned ? `all checks passed, ${warned} warning(s)` : "all checks passed");
  return lines.join("\n");
}

/** `sigil doctor`: exit 0 when nothing failed (warnings allowed), 1 otherwise. */
export async function doctorCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseCommand(args, { role: { type: "string" } }, DOCTOR_USAGE);
  const role = (values.role ?? (env.DATABASE_URL || env.REDIS_URL || env.TEMPORAL_ADDRESS ? "production" : "dev")) as Role;
  if (role !== "dev" && role !== "production") throw usageError(`--role must be dev or production, got "${values.role}"`, DOCTOR_USAGE);
  const checks = await runDoctor(env, role);
  const ok = !checks.some((c) => c.status === "fail");
  printResult(!!values.json, { ok, role, checks }, () => `sigil doctor (${role} settings)\n\n${formatChecks(checks)}`);
  return ok ? 0 : 1;
}
