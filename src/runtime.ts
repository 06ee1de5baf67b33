import type { Client } from "@temporalio/client";
import type { Config } from "./config.js";
import { createSealer } from "./crypto/seal.js";
import { closeDatabase, connectDatabase, type Database } from "./db/db.js";
import { migrate } from "./db/migrate.js";
import type { Deps } from "./domain/deps.js";
import { startEmbeddedPostgres } from "./infra/embedded-postgres.js";
import { startTemporalDevServer } from "./infra/temporal-dev-server.js";
import { createDispatcher } from "./domain/webhooks/dispatcher.js";
import { createLogger, type Logger } from "./log.js";
import { createApiHandler, type ReadinessCheck } from "./server/app.js";
import { createDualServer } from "./server/listen.js";
import { createStore } from "./store/store.js";
import { connectTemporalClient, createFlows } from "./temporal/flows.js";
import { installTemporalRuntimeLogger } from "./temporal/runtime-logger.js";
import { createWorker } from "./temporal/worker.js";

export interface Runtime {
  port: number | undefined;
  temporalUiUrl: string | undefined;
  log: Logger;
  stop(): Promise<void>;
}

/** Resolves DATABASE_URL, or starts the embedded Postgres under <dataDir>/postgres. */
export async function resolveDatabase(config: Config, log: Logger): Promise<{ url: string; stop?: () => Promise<void> }> {
  if (config.databaseUrl) return { url: config.databaseUrl };
  log.info("starting embedded postgres", { dataDir: config.dataDir, port: config.embeddedPostgresPort });
  const pg = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPostgresPort, log: (l) => log.debug(l) });
  return { url: pg.url, stop: pg.stop };
}

/** Task-queue pollers seen recently: how an api-only process knows a worker is serving its flows. */
function workerPollingCheck(client: Client, config: Config): ReadinessCheck {
  let cached: { at: number; ok: boolean } | undefined;
  return {
    name: "worker",
    async check() {
      if (cached && Date.now() - cached.at < 5000) return cached.ok;
      const res = await client.workflowService.describeTaskQueue({
        namespace: config.temporalNamespace,
        taskQueue: { name: config.temporalTaskQueue },
        taskQueueType: 1, // workflow task pollers
      });
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
  const log = createLogger(config.logLevel);
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((err) => log.warn("stop failed", { error: String(err) }));
  };
  try {
    const database = await resolveDatabase(config, log);
    if (database.stop) stops.push(database.stop);
    const db: Database = connectDatabase(database.url);
    stops.push(() => closeDatabase(db));
    const applied = await migrate(db);
    if (applied.length) log.info("migrations applied", { versions: applied });

    const store = await createStore(config.redisUrl, { onError: (err) => log.warn("redis error", { error: err.message }) });
    stops.push(() => store.close());

    let temporalAddress = config.temporalAddress;
    let temporalUiUrl: string | undefined;
    if (!temporalAddress) {
      log.info("starting temporal dev server", { port: config.embeddedTemporalPort });
      const dev = await startTemporalDevServer({
        cliPath: config.temporalCliPath,
        dataDir: config.dataDir,
        port: config.embeddedTemporalPort,
        namespace: config.temporalNamespace,
        log: (l) => log.debug(l),
      });
      stops.push(dev.stop);
      temporalAddress = dev.address;
      temporalUiUrl = dev.uiUrl;
    }
    const client = await connectTemporalClient(temporalAddress, config.temporalNamespace);
    stops.push(() => client.connection.close());

    const deps: Deps = {
      config,
      db,
      store,
      sealer: createSealer(config.sealingKeys),
      flows: createFlows(client, config.temporalTaskQueue),
      log,
    };

    const checks: ReadinessCheck[] = [
      { name: "database", check: async () => (await db.one("SELECT 1 AS ok")).ok === 1 },
      { name: "store", check: () => store.ping() },
    ];
    let workerState = () => false;
    if (roles.worker) checks.push({ name: "worker", check: async () => workerState() });
    else checks.push(workerPollingCheck(client, config));

    let port: number | undefined;
    if (roles.api) {
      const server = createDualServer(createApiHandler(deps, checks));
      port = await server.listen(config.port, config.host);
      stops.push(() => server.close());
      log.info("api listening", { url: `http://${config.host}:${port}`, publicUrl: config.publicUrl });
    }
    if (roles.worker) {
      installTemporalRuntimeLogger(log, config.logLevel === "debug");
      const { worker, connection } = await createWorker({
        address: temporalAddress,
        namespace: config.temporalNamespace,
        taskQueue: config.temporalTaskQueue,
        deps: { db, store, sealer: deps.sealer, webhooks: config.webhooks },
      });
      const running = worker.run();
      workerState = () => worker.getState() === "RUNNING";
      running.catch((err) => log.error("worker stopped", { error: String(err) }));
      stops.push(async () => {
        if (worker.getState() === "RUNNING") worker.shutdown();
        await running.catch(() => {});
        await connection.close();
      });
      log.info("worker running", { taskQueue: config.temporalTaskQueue });
      // The outbox relay runs beside the worker: any number of worker processes may run it (SKIP LOCKED).
      const dispatcher = createDispatcher(deps);
      await dispatcher.start();
      stops.push(() => dispatcher.stop());
    }
    return { port, temporalUiUrl, log, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
