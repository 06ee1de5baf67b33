import { loadConfig } from "./config.js";
import { devRoleEnv } from "./dev-defaults.js";
import { removeRunState, writeRunState } from "./infra/run-state.js";
import { describeStartFailure } from "./infra/start-failure.js";
import { missingProductionSettings } from "./production-roles.js";
import { startRuntime, type Runtime } from "./runtime.js";
import { runStateOf, startBanner } from "./start-banner.js";

/**
 * `node --import tsx src/main.ts [dev|api|worker]`: dev (the default, what `npm start` runs) serves the API and runs the
 * worker in one process on the embedded defaults; api and worker are the production roles.
 */
const mode = (process.argv[2] ?? "dev") as "dev" | "api" | "worker";
if (!["dev", "api", "worker"].includes(mode)) {
  console.error(`unknown mode ${mode}: expected dev, api or worker`);
  process.exit(2);
}

// Before the settings are read: reading them generates the dev role's key files in the data dir.
if (mode !== "dev") {
  const missing = missingProductionSettings(process.env);
  if (missing.length) {
    console.error(`sigil: the ${mode} role needs settings the dev role makes up: ${missing.join("; ")}. See docs/runbook.md.`);
    process.exit(2);
  }
}

const config = (() => {
  try {
    return loadConfig(mode === "dev" ? devRoleEnv(process.env) : process.env);
  } catch (err) {
    // A malformed setting stops the start with its own message (which names the variable), not a stack.
    console.error(`sigil: invalid configuration: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  }
})();

/**
 * A graceful stop (in-flight requests drained, worker and dispatcher stopped, children stopped) is bounded by
 * its parts; this deadline is the backstop: a stop that still hangs exits non-zero, and the embedded
 * children are killed by the managed processes' exit hook.
 *
 * Ctrl-C in a terminal reaches node twice: from the terminal (SIGINT goes to the whole foreground process
 * group: npm, its shell and node) and again forwarded by npm. A signal within DUPLICATE_SIGNAL_MS of the
 * first is that copy and changes nothing; a signal after that exits at once, without draining.
 *
 * The handlers go in before the start: the API answers /healthz before startRuntime returns, and a signal
 * that arrived in that window used to kill the process outright, its embedded children left running. A
 * signal during the start lets the start finish (it is bounded), then stops.
 */
const SHUTDOWN_DEADLINE_MS = 10_000;
const DUPLICATE_SIGNAL_MS = 2_000;
const FORCE_RULE = `another SIGINT or SIGTERM more than ${DUPLICATE_SIGNAL_MS / 1000} s after this one exits at once, without draining`;

let runtime: Runtime | undefined;
let stopRequested: { signal: NodeJS.Signals; at: number } | undefined;
const startedAt = new Date();
/** The run.json of a dev start (./infra/run-state.ts): written once ready, removed after a clean stop. */
let published: Promise<void> = Promise.resolve();

function shutDown(signal: NodeJS.Signals, rt: Runtime): void {
  rt.log.info("shutting down", { signal, force: FORCE_RULE });
  const started = Date.now();
  setTimeout(() => {
    rt.log.error("shutdown did not finish in time; exiting", { deadlineMs: SHUTDOWN_DEADLINE_MS });
    process.exit(1);
  }, SHUTDOWN_DEADLINE_MS - 500).unref();
  void rt.stop().then(async () => {
    await published;
    await removeRunState(config.dataDir).catch((err) => rt.log.warn("could not remove run.json", { error: String(err) }));
    rt.log.info("shut down", { ms: Date.now() - started });
    process.exit(0);
  });
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopRequested) {
      if (Date.now() - stopRequested.at < DUPLICATE_SIGNAL_MS) return; // the same Ctrl-C, forwarded by npm
      console.error(`${signal} again: exiting without waiting for the shutdown`);
      process.exit(1);
    }
    stopRequested = { signal, at: Date.now() };
    if (runtime) shutDown(signal, runtime);
    else console.error(`${signal} while starting: stopping once the start has finished (${FORCE_RULE})`);
  });
}

try {
  runtime = await startRuntime(config, { api: mode !== "worker", worker: mode !== "api" });
} catch (err) {
  // startRuntime stopped whatever it had started; what failed is said in one paragraph, not a stack
  // (./infra/start-failure.ts), and the exit code tells a process manager the start failed.
  console.error(describeStartFailure(err));
  process.exit(1);
}
if (stopRequested) shutDown(stopRequested.signal, runtime);
else announce(runtime);

/** Writes run.json (dev with the API: what a second terminal reads), then prints the banner. */
function announce(rt: Runtime): void {
  const port = rt.port;
  if (mode === "dev" && port !== undefined) {
    published = writeRunState(runStateOf(config, { ...rt, port }, startedAt)).catch((err) =>
      rt.log.warn("could not write run.json: other terminals must be told the addresses (DATABASE_URL, ...)", { error: String(err) }),
    );
  }
  // A production role logging JSON (the image, a process manager) says it once as a log line: a banner of
  // loose text lines would be as many unparsable records to a log collector.
  if (mode !== "dev" && config.logFormat === "json") rt.log.info("ready", { role: mode, port: rt.port, workerPort: rt.workerPort, publicUrl: config.publicUrl });
  else void published.then(() => console.log(startBanner(config, rt, mode).join("\n")));
}
