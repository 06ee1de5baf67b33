import { mkdirSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Connection } from "@temporalio/client";
import { startManagedProcess } from "./managed-process.js";
import { assertPortFree } from "./ports.js";
import { decisiveLine, StartFailure } from "./start-failure.js";
import { findTemporalCli, installTemporalCli, installTemporalCliHint, isGoAvailable } from "./temporal-cli.js";
import { devServerSearchAttributeFlags } from "../temporal/search-attributes.js";

export { findTemporalCli } from "./temporal-cli.js";

export interface TemporalDevServerOptions {
  /** The CLI to run; default: findTemporalCli(), building it with Go when absent and Go is installed. */
  cliPath?: string;
  /** Directory for the SQLite file (<dataDir>/temporal.db); omitted = in-memory, lost on stop. */
  dataDir?: string;
  /** Frontend gRPC port. */
  port: number;
  /** Web UI port; default port + 1000 (the CLI's own convention). */
  uiPort?: number;
  headless?: boolean;
  namespace?: string;
  /** The server's own output (noisy; its tail is in the error when start fails anyway). */
  log?: (line: string) => void;
  /** Progress of building the CLI with Go when it is missing; default stderr, since it takes minutes. */
  installLog?: (line: string) => void;
  /** How long to wait for the frontend to answer; default 60 s. */
  readyTimeoutMs?: number;
}

export interface TemporalDevServer {
  /** host:port for @temporalio/client Connection / NativeConnection. */
  address: string;
  uiUrl: string | undefined;
  /** Resolves with the server's exit code (or signal name) when it exits, on stop() or on its own. */
  exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after graceMs (default 10 s). */
  stop(graceMs?: number): Promise<void>;
}

const host = "127.0.0.1";

async function resolveCli(explicit: string | undefined, log: (line: string) => void): Promise<string> {
  const found = findTemporalCli(explicit);
  if (found) return found;
  if (isGoAvailable()) return installTemporalCli(log);
  throw new Error(`Temporal CLI not found and Go is not installed to build it: ${installTemporalCliHint}`);
}

/**
 * Polls until the frontend accepts a connection and can describe the namespace: the port opens a little
 * before the namespace registry is loaded, and a worker started in between fails with NotFound.
 */
async function waitUntilReady(address: string, namespace: string, deadline: number, exited: Promise<unknown>): Promise<void> {
  let gone = false;
  // An attempt in flight must not outlive the child: race each one against its exit.
  const exit = exited.then(() => {
    gone = true;
    throw new Error("server exited");
  });
  exit.catch(() => undefined);
  let lastError: unknown;
  while (Date.now() < deadline && !gone) {
    let connection: Connection | undefined;
    try {
      await Promise.race([
        (async () => {
          connection = await Connection.connect({ address, connectTimeout: 2_000 });
          await connection.workflowService.describeNamespace({ namespace });
        })(),
        exit,
      ]);
      return;
    } catch (err) {
      lastError = err;
    } finally {
      await connection?.close().catch(() => undefined);
    }
    if (!gone) await sleep(250);
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError ?? "server exited"));
}

/**
 * Runs `temporal server start-dev` as a child process and resolves once it serves `namespace`.
 * The child is killed by stop() and, failing that, when this process exits.
 */
/** A failed start; `exited`: the server died while starting (not a timeout), which a new try may not repeat. */
export class TemporalStartError extends StartFailure {
  constructor(
    what: string,
    why: string,
    remedy: string,
    readonly exited: boolean,
  ) {
    super(what, why, remedy);
  }
}

/** How to get a taken port out of the way: the settings of ../config.ts. */
const portRemedy =
  "Stop the process that holds the port, pick another port with SIGIL_EMBEDDED_TEMPORAL_PORT (its web UI takes that port + 1000), or point TEMPORAL_ADDRESS at a Temporal server of your own.";

export async function startTemporalDevServer(opts: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const log = opts.log ?? (() => undefined);
  const namespace = opts.namespace ?? "default";
  const uiPort = opts.uiPort ?? opts.port + 1000;
  const cli = await resolveCli(opts.cliPath, opts.installLog ?? ((line) => process.stderr.write(`[temporal-cli] ${line}\n`)));

  await assertPortFree(opts.port, "the embedded Temporal dev server (frontend gRPC)", portRemedy, host);
  if (!opts.headless) await assertPortFree(uiPort, "the embedded Temporal dev server (web UI)", portRemedy, host);

  const args = ["server", "start-dev", "--ip", host, "--port", String(opts.port), "--ui-port", String(uiPort)];
  if (opts.dataDir) {
    mkdirSync(opts.dataDir, { recursive: true });
    args.push("--db-filename", path.join(opts.dataDir, "temporal.db"));
  }
  if (opts.headless) args.push("--headless");
  // "default" always exists; naming it again is harmless and keeps one code path.
  args.push("--namespace", namespace, "--log-level", "warn");
  // The workflows' custom search attributes (src/temporal/search-attributes.ts), for filtering in the UI.
  args.push(...devServerSearchAttributeFlags());

  const server = startManagedProcess(cli, args, { log });
  const address = `${host}:${opts.port}`;
  let exitCode: number | string | undefined;
  void server.exited.then((code) => (exitCode = code));

  try {
    await waitUntilReady(address, namespace, Date.now() + (opts.readyTimeoutMs ?? 60_000), server.exited);
  } catch (err) {
    await server.stop(2_000);
    const said = decisiveLine(server.recentOutput());
    const why =
      (exitCode !== undefined ? `it exited (${exitCode})` : `it did not answer in time (${(err as Error).message})`) +
      (said ? `; its last word: ${said}` : "");
    throw new TemporalStartError(
      `the embedded Temporal dev server (${cli}, port ${opts.port}) did not start`,
      why,
      `Its whole output is logged with LOG_LEVEL=debug. If the CLI is missing or broken, ${installTemporalCliHint}.`,
      exitCode !== undefined,
    );
  }

  return {
    address,
    uiUrl: opts.headless ? undefined : `http://${host}:${uiPort}`,
    exited: server.exited,
    stop: (graceMs?: number) => server.stop(graceMs),
  };
}
