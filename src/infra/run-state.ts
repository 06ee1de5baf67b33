import { existsSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "./atomic-file.js";

/**
 * <dataDir>/run.json: what a second terminal needs to reach the `npm start` running on that data dir (the
 * CLI, scripts/dev-*.ts, a shell through `sigil env`), so that nothing has to be exported again. Written
 * whole (0600: it holds the database password) once the service is ready, removed on a clean stop. A
 * run.json whose process is gone (kill -9, a crash) is stale: readers say so rather than connect to
 * whatever holds those ports now.
 */
export interface RunState {
  version: 1;
  pid: number;
  startedAt: string;
  dataDir: string;
  /** REST, gRPC, gRPC-Web and Connect, all on this origin (the listen address, for local tools). */
  baseUrl: string;
  /** baseUrl + /api/v0: the REST API. */
  apiUrl: string;
  /** host:port for gRPC clients (the same port). */
  grpcAddress: string;
  /** PUBLIC_URL: the origin Sigil builds its own links with (OAuth redirect URIs). */
  publicUrl: string;
  postgresUrl: string;
  /** null: the in-process store. */
  redisUrl: string | null;
  temporalAddress: string;
  temporalNamespace: string;
  temporalUiUrl: string | null;
  /** The dev mailbox and SMS outbox, or null when a real mail server / SMS gateway is configured. */
  mailboxDir: string | null;
  smsOutboxDir: string | null;
}

export const runStatePath = (dataDir: string) => path.join(path.resolve(dataDir), "run.json");

export async function writeRunState(state: RunState): Promise<void> {
  await writeFileAtomic(runStatePath(state.dataDir), `${JSON.stringify(state, null, 2)}\n`);
}

/** Removes run.json if it is still this process's (a newer start on the same data dir may have replaced it). */
export async function removeRunState(dataDir: string, pid = process.pid): Promise<void> {
  const found = readRunState(dataDir);
  if (found && found.pid === pid) await rm(runStatePath(dataDir), { force: true });
}

function readRunState(dataDir: string): RunState | undefined {
  const file = runStatePath(dataDir);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as RunState;
  } catch (err) {
    throw new Error(`${file} is not readable JSON (${err instanceof Error ? err.message : String(err)}): remove it and start Sigil again`);
  }
}

/** Signal 0 probes without signalling: ESRCH is gone; EPERM is alive (another user's process). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export type RunLookup = { status: "running"; state: RunState } | { status: "stale"; state: RunState } | { status: "absent" };

/** The service running on dataDir, as its run.json says; "stale" when the process it names is gone. */
export function lookUpRun(dataDir: string): RunLookup {
  const state = readRunState(dataDir);
  if (!state) return { status: "absent" };
  return isAlive(state.pid) ? { status: "running", state } : { status: "stale", state };
}

export class NoRunningSigil extends Error {
  constructor(dataDir: string, lookup: RunLookup) {
    const why =
      lookup.status === "stale"
        ? ` (${runStatePath(dataDir)} names pid ${lookup.state.pid}, which has exited)`
        : ` (no ${runStatePath(dataDir)}: was it started from another directory? SIGIL_DATA_DIR selects the data dir)`;
    super(`no running Sigil for data dir ${path.resolve(dataDir)}: start it with npm start${why}`);
    this.name = "NoRunningSigil";
  }
}

/** The running service of dataDir, or NoRunningSigil naming why not. */
export function requireRunning(dataDir: string): RunState {
  const lookup = lookUpRun(dataDir);
  if (lookup.status !== "running") throw new NoRunningSigil(dataDir, lookup);
  return lookup.state;
}
