import type { Client } from "@temporalio/client";
import type { Config } from "./config.js";
import { closeDatabase, connectDatabase, type Database } from "./db/db.js";
import { migrate, pendingMigrations } from "./db/migrate.js";
import { buildDeps } from "./deps.js";
import { asUnavailable } from "./infra/dependency-errors.js";
import { startEmbeddedPostgres } from "./infra/embedded-postgres.js";
import { unreachable } from "./infra/start-failure.js";
import { supervise } from "./infra/supervisor.js";
import { startTracing } from "./infra/tracing.js";
import { startTemporalDevServer, TemporalStartError } from "./infra/temporal-dev-server.js";
import { registerSearchAttributes } from "./temporal/search-attributes.js";
import { setTimeout as sleep } from "node:timers/promises";
import { createDispatcher } from "./outbox/dispatcher.js";
import { startReconciler } from "./domain/reconciler.js";
import { createLogger, type Logger } from "./log.js";
import { createApiHandler, type ReadinessCheck } from "./server/app.js";
import { createDualServer } from "./server/listen.js";
import { createStore } from "./store/store.js";
import { closeTemporalClient, createEngineCalls, type EngineCalls } from "./temporal/client-shutdown.js";
import { createEngineMonitor, guardFlows } from "./temporal/engine-monitor.js";
import { connectTemporalClient, createFlows } from "./temporal/flows.js";
import { installTemporalRuntimeLogger } from "./temporal/runtime-logger.js";
import { freeLoopbackAddress } from "./temporal/core-metrics.js";
import { createProcessMetrics } from "./observability/metrics/process-metrics.js";
import { scrapeMetrics } from "./observability/metrics/scrape.js";
import { startWorkerListener } from "./server/worker-listener.js";
import { startSupervisedWorker } from "./temporal/supervised-worker.js";
import { createWorker, workflowBundleCacheDir } from "./temporal/worker.js";
import { cachedWorkflowBundle } from "./temporal/workflow-bundle.js";

export interface Runtime {
  port: number | undefined;
  /** The port of a worker-only process's /metrics, /livez and /readyz (SIGIL_WORKER_PORT); undefined otherwise. */
  workerPort: number | undefined;
  /** The database and Temporal frontend in use: configured, or the embedded ones this process started. */
  databaseUrl: string;
  temporalAddress: string;
  temporalUiUrl: string | undefined;
  log: Logger;
  stop(): Promise<void>;
}

/**
 * The stop's bounds (all within main.ts's 10 s): requests in flight get API_DRAIN_MS to finish, then those
 * still waiting on the engine are cancelled and get API_ANSWER_MS to write their 503; the worker's own
 * shutdown follows (WORKER_STOP_MS); engine calls left then get CALLS_SETTLE_MS.
 */
const API_DRAIN_MS = 3_000;
const API_ANSWER_MS = 1_000;
const CALLS_SETTLE_MS = 1_000;
/** The worker's shutdown is bounded by its force time (4 s, ./temporal/worker.ts); with the engine down, by this. */
const WORKER_STOP_MS = 4_500;
const WORKER_STOP_ENGINE_DOWN_MS = 500;

/**
 * Resolves DATABASE_URL, or starts the embedded Postgres under <dataDir>/postgres, supervised: restarted on
 * the same port and data dir when it dies, so the pool reconnects by itself.
 */
export async function resolveDatabase(
  config: Config,
  log: Logger,
): Promise<{ url: string; stop?: () => Promise<void>; retire?: () => void }> {
  if (config.databaseUrl) return { url: config.databaseUrl };
  log.info("starting embedded postgres", { dataDir: config.dataDir, port: config.embeddedPostgresPort });
  const start = () => startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPostgresPort, log: (l) => log.debug(l) });
  const pg = await start();
  const supervisor = supervise(pg, { name: "embedded postgres", start, log });
  return { url: pg.url, stop: () => supervisor.stop(), retire: supervisor.retire };
}

/**
 * A first contact with DATABASE_URL that failed on the connection or the login (SQLSTATE class 28, or 3D000:
 * no such database), as opposed to a migration that failed on its own merits.
 */
function isNotLetIn(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return asUnavailable(err) !== undefined || (typeof code === "string" && (code.startsWith("28") || code === "3D000"));
}

/** The database answers a query (the process's readiness check; the test app runs the same one). */
export function databaseCheck(db: Database): ReadinessCheck {
  return { name: "database", check: async () => (await db.one("SELECT 1 AS ok")).ok === 1 };
}

/** Task-queue pollers seen recently: how an api-only process knows a worker is serving its flows. */
function workerPollingCheck(client: Client, config: Config, calls: EngineCalls): ReadinessCheck {
  let cached: { at: number; ok: boolean } | undefined;
  return {
    name: "worker",
    async check() {
      if (cached && Date.now() - cached.at < 5000) return cached.ok;
      const res = await calls.run(() =>
        client.workflowService.describeTaskQueue({
          namespace: config.temporalNamespace,
          taskQueue: { name: config.temporalTaskQueue },
          taskQueueType: 1, // workflow task pollers
        }),
      );
      cached = { at: Date.now(), ok: res.pollers.length > 0 };
      return cached.ok;
    },
  };
}

/**
 * Starts the roles asked for: "api" serves HTTP, "worker" runs the Temporal worker, "dev" both in one
 * process. Unset DATABASE_URL / TEMPORAL_ADDRESS / REDIS_URL select the embedded defaults.
 */
export async function startRuntime(config: Config, roles: { api: boolean; worker: boolean }): Promise<Runtime> {
  const log = createLogger(config.logLevel, undefined, config.logFormat);
  const stops: (() => Promise<void>)[] = [];
  // First, so that every client, server and worker built below traces (./infra/tracing.ts); stopped last,
  // after the spans of the stop itself.
  if (config.tracing) stops.push(await startTracing(config.tracing));
  // Stopping goes in three steps, each bounded. Intake: the API stops accepting and drains its requests in
  // flight while the worker still runs (a request waiting for a wallet operation needs the worker to finish
  // it), and the dispatcher stops claiming messages. Work: the worker stops. Then clients and children close
  // in reverse order of their start.
  const intakes: (() => Promise<void>)[] = [];
  const drains: (() => Promise<void>)[] = [];
  const retires: (() => void)[] = []; // supervisors: no restarts once stopping
  // Set when the stop begins: /readyz answers 503 from then on, so that no new traffic comes here.
  let draining = false;
  const stop = async () => {
    draining = true;
    const failed = (err: unknown) => log.warn("stop failed", { error: String(err) });
    for (const r of retires) r();
    await Promise.all(intakes.splice(0).map((d) => d().catch(failed)));
    await Promise.all(drains.splice(0).map((d) => d().catch(failed)));
    for (const s of stops.reverse()) await s().catch(failed);
  };
  // The slow parts of a start run side by side (docs/benchmarks.md, start-up): the workflow bundle (cached on
  // disk), the embedded Temporal dev server and the embedded Postgres. Each is awaited where it is needed; a
  // failure anywhere still stops whatever did start (the catch below waits for the Temporal start first).
  // Before anything of the Temporal SDK runs (bundling creates its default runtime, whose logger prints INFO
  // and whose signal handlers would race the bounded shutdown).
  // The worker core's own metrics are served on a loopback port and appended to /metrics (./temporal/core-metrics.ts).
  const metrics = createProcessMetrics({ enabled: config.metricsEnabled });
  if (roles.worker) installTemporalRuntimeLogger(log, config.logLevel === "debug", config.metricsEnabled ? await freeLoopbackAddress() : undefined);
  const bundle = roles.worker ? cachedWorkflowBundle(workflowBundleCacheDir(config.dataDir), (m) => log.info(m), { traced: config.tracing !== undefined }) : undefined;
  bundle?.catch(() => {}); // awaited (and so reported) by the worker's start
  const temporal = resolveTemporal(config, log, stops, retires);
  temporal.catch(() => {});
  try {
    const database = await resolveDatabase(config, log);
    if (database.stop) stops.push(database.stop);
    if (database.retire) retires.push(database.retire);
    const db: Database = connectDatabase(database.url);
    stops.push(() => closeDatabase(db));
    const applied = await (config.migrateOnStart ? migrate(db) : refuseOlderSchema(db)).catch((err) => {
      throw config.databaseUrl && isNotLetIn(err)
        ? unreachable("DATABASE_URL", config.databaseUrl, 5432, "Check that this Postgres runs and lets this user in, or unset DATABASE_URL to use the embedded one.", err)
        : err;
    });
    if (applied.length) log.info("migrations applied", { versions: applied });

    const store = await createStore(config.redisUrl, { onError: (err) => log.warn("redis error", { error: err.message }) }).catch((err) => {
      throw config.redisUrl
        ? unreachable("REDIS_URL", config.redisUrl, 6379, "Check that this Redis runs, or unset REDIS_URL to use the in-process store (one process only).", err)
        : err;
    });
    stops.push(() => store.close());

    const { address: temporalAddress, uiUrl: temporalUiUrl } = await temporal;
    const client = await connectTemporalClient(temporalAddress, config.temporalNamespace).catch((err) => {
      throw config.temporalAddress
        ? unreachable("TEMPORAL_ADDRESS", config.temporalAddress, 7233, "Check that this Temporal server runs, or unset TEMPORAL_ADDRESS to use the embedded dev server.", err)
        : err;
    });
    const calls = createEngineCalls(client);
    stops.push(async () => {
      // Nothing may still wait on the engine when its connection closes (./temporal/client-shutdown.ts).
      calls.cancel();
      await calls.idle(CALLS_SETTLE_MS);
      if (!(await closeTemporalClient(client, CALLS_SETTLE_MS))) log.warn("temporal client left open: a retry was still due");
    });
    // Workflows set Sigil's search attributes, which a namespace must know first. The dev server's
    // --search-attribute flags only take on a new database (not on the data dir of an earlier start), and an
    // external cluster may lack them: the namespace gets those it lacks here (or an operator adds them).
    await registerSearchAttributes(client.connection, config.temporalNamespace).catch((err) =>
        log.warn("could not register the workflows' search attributes; add them with `temporal operator search-attribute create`", { error: String(err) }),
      );
    const engine = createEngineMonitor(client, temporalAddress, log);
    stops.push(async () => engine.stop());

    const flows = metrics.flows(guardFlows(createFlows(client, config.temporalTaskQueue), engine, calls));
    const deps = buildDeps({ config, db, store, flows, log, observer: metrics.observer });

    // /readyz asks the dependencies only: an api whose workers are all down still serves what needs none.
    const dependencies: ReadinessCheck[] = [
      databaseCheck(db),
      { name: "store", check: () => store.ping() },
      { name: "workflowEngine", check: () => engine.check() },
    ];
    const checks: ReadinessCheck[] = [...dependencies];
    let workerState = () => false;
    // A worker counts as serving only while it runs and the engine it polls answers.
    if (roles.worker) checks.push({ name: "worker", check: async () => workerState() && (await engine.check()) });
    else checks.push(workerPollingCheck(client, config, calls));

    const operator = { draining: () => draining, metrics: () => scrapeMetrics(metrics, deps) };
    let workerPort: number | undefined;
    if (roles.worker && !roles.api && config.workerPort > 0) {
      // Up before the worker starts: /livez answers while the workflow bundle loads; /readyz once it polls.
      const listener = await startWorkerListener({ ...operator, ready: checks }, config.workerPort, config.host);
      workerPort = listener.port;
      stops.push(() => listener.close());
      log.info("worker listening", { url: `http://${config.host}:${workerPort}`, paths: ["/metrics", "/livez", "/readyz"] });
    }

    let port: number | undefined;
    if (roles.api) {
      const server = createDualServer(createApiHandler(deps, checks, { metrics, ready: dependencies, draining: operator.draining }));
      port = await server.listen(config.port, config.host);
      intakes.push(async () => {
        // Requests still waiting on the engine after the drain are cancelled: they answer 503 "retry" before
        // their connections close, rather than being cut.
        const cancel = setTimeout(() => calls.cancel(), API_DRAIN_MS);
        await server.close(API_DRAIN_MS + API_ANSWER_MS);
        clearTimeout(cancel);
      });
      log.info("api listening", { url: `http://${config.host}:${port}`, publicUrl: config.publicUrl });
    }
    if (roles.worker) {
      const address = temporalAddress;
      const worker = await startSupervisedWorker(
        async () =>
          createWorker({
            address,
            namespace: config.temporalNamespace,
            taskQueue: config.temporalTaskQueue,
            deps,
            workflowBundle: await bundle,
          }),
        log,
        { name: config.temporalTaskQueue },
      );
      workerState = () => worker.running();
      // A worker whose engine is unreachable has nothing left to hand back, and its shutdown waits on a call
      // the engine cannot answer: it is not waited for (the process exits after the stop).
      drains.push(async () => {
        const stopped = worker.stop();
        const bound = engine.knownDown() ? WORKER_STOP_ENGINE_DOWN_MS : WORKER_STOP_MS;
        if ((await Promise.race([stopped.then(() => true), sleep(bound, false, { ref: false })])) === false) {
          log.warn("worker still stopping; not waited for", { waitedMs: bound });
        }
      });
      log.info("worker running", { taskQueue: config.temporalTaskQueue });
      // The outbox relay runs beside the worker: any number of worker processes may run it (SKIP LOCKED).
      const dispatcher = createDispatcher(deps);
      await dispatcher.start();
      intakes.push(() => dispatcher.stop());
      // Work whose durable flow never started (a room's run, an export) is handed over again, now and on a
      // timer; any number of worker processes may do it (./domain/reconciler.ts).
      const reconciler = startReconciler(deps, config.reconciler);
      intakes.push(() => reconciler.stop());
    }
    return { port, workerPort, databaseUrl: database.url, temporalAddress, temporalUiUrl, log, stop };
  } catch (err) {
    await temporal.catch(() => undefined); // a dev server still starting is stopped too
    await stop();
    throw err;
  }
}

/**
 * TEMPORAL_ADDRESS, or the embedded Temporal dev server, supervised: restarted on the same port and SQLite
 * file when it dies (the client and the worker reconnect). Its stop and retire join the runtime's.
 */
/**
 * The dev server picks free ports for its internal services and binds them a moment after; another process
 * can take one in between, and the server then dies while starting (seen when many start at once). Such a
 * death is retried twice; a timeout or a taken frontend port is not (a retry would only repeat it).
 */
async function firstStart<T>(start: () => Promise<T>, log: Logger): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (!(err instanceof TemporalStartError && err.exited) || attempt === 3) throw err;
      log.warn("temporal dev server exited while starting; trying again", { attempt, error: err.message.split("\n")[0] });
      await sleep(500 * attempt);
    }
  }
}

async function resolveTemporal(
  config: Config,
  log: Logger,
  stops: (() => Promise<void>)[],
  retires: (() => void)[],
): Promise<{ address: string; uiUrl: string | undefined }> {
  if (config.temporalAddress) return { address: config.temporalAddress, uiUrl: undefined };
  log.info("starting temporal dev server", { port: config.embeddedTemporalPort });
  const startDev = async () => {
    const dev = await startTemporalDevServer({
      cliPath: config.temporalCliPath,
      dataDir: config.dataDir,
      port: config.embeddedTemporalPort,
      namespace: config.temporalNamespace,
      log: (l) => log.debug(l),
    });
    // SIGKILL after 3 s: the shutdown of the whole process is bounded (src/main.ts).
    return { ...dev, stop: () => dev.stop(3_000) };
  };
  const dev = await firstStart(startDev, log);
  const supervisor = supervise(dev, { name: "temporal dev server", start: startDev, log });
  stops.push(() => supervisor.stop());
  retires.push(supervisor.retire);
  return { address: dev.address, uiUrl: dev.uiUrl };
}

/** SIGIL_MIGRATE_ON_START=false: the schema must already be this release's (or newer); nothing is applied. */
async function refuseOlderSchema(db: Database): Promise<string[]> {
  const pending = await pendingMigrations(db);
  if (pending.length) {
    throw new Error(
      `the database lacks ${pending.length} migration(s) of this release (${pending.join(", ")}) and SIGIL_MIGRATE_ON_START is false: run \`sigil migrate\` (the Helm chart's migration Job) first`,
    );
  }
  return [];
}
