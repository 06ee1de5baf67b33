import { loadConfig } from "./config.js";
import { devRoleEnv } from "./dev-defaults.js";
import { removeRunState, writeRunState } from "./infra/run-state.js";
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
 * children are killed by the managed processes' exit hook. A second signal exits at once.
 *
 * The handlers go in before the start: the API answers /healthz before startRuntime returns, and a signal
 * that arrived in that window used to kill the process outright, its embedded children left running. A
 * signal during the start lets the start finish (it is bounded), then stops.
 */
const SHUTDOWN_DEADLINE_MS = 10_000;

let runtime: Runtime | undefined;
let stopRequested: NodeJS.Signals | undefined;
const startedAt = new Date();
/** The run.json of a dev start (./infra/run-state.ts): written once ready, removed after a clean stop. */
let published: Promise<void> = Promise.resolve();

function shutDown(signal: NodeJS.Signals, rt: Runtime): void {
  rt.log.info("shutting down", { signal });
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
      console.error(`second ${signal}: exiting without waiting for the shutdown`);
      process.exit(1);
    }
    stopRequested = signal;
    if (runtime) shutDown(signal, runtime);
    else console.error(`${signal} while starting: stopping once the start has finished`);
  });
}

runtime = await startRuntime(config, { api: mode !== "worker", worker: mode !== "api" });
if (stopRequested) shutDown(stopRequested, runtime);
else announce(runtime);

/** Writes run.json (dev with the API: what a second terminal reads), then prints the banner. */
function announce(rt: Runtime): void {
  const port = rt.port;
  if (mode === "dev" && port !== undefined) {
    published = writeRunState(runStateOf(config, { ...rt, port }, startedAt)).catch((err) =>
      rt.log.warn("could not write run.json: other terminals must be told the addresses (DATABASE_URL, ...)", { error: String(err) }),
    );
  }
  void published.then(() => console.log(startBanner(config, rt, mode).join("\n")));
}
