import { randomBytes, randomUUID } from "node:crypto";
import { DEFAULT_EXTERNAL_SIGN_IN_SETTINGS, DEFAULT_SDK_EVENT_LIMITS, DEFAULT_SESSION_MAX_AGE_SECONDS, DEFAULT_VERIFICATION_SETTINGS, DEFAULT_RECONCILER_SETTINGS, DEFAULT_WEBHOOK_SETTINGS, undeclaredErrorSettings, type Config } from "../../src/config.js";
import { DEFAULT_CHAIN_SETTINGS } from "../../src/config-chains.js";
import { DEFAULT_RAMP_SETTINGS } from "../../src/config-ramps.js";
import { closeDatabase, connectDatabase, type Database } from "../../src/db/db.js";
import { migrate } from "../../src/db/migrate.js";
import type { Deps } from "../../src/domain/deps.js";
import { buildDeps } from "../../src/deps.js";
import { bootstrapTenant, type BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { createActivities } from "../../src/activities/index.js";
import { createDispatcher, type Dispatcher } from "../../src/outbox/dispatcher.js";
import { databaseCheck } from "../../src/runtime.js";
import { createApiHandler } from "../../src/server/app.js";
import { createProcessMetrics } from "../../src/observability/metrics/process-metrics.js";
import { createDualServer } from "../../src/server/listen.js";
import { createStore, type EphemeralStore } from "../../src/store/store.js";
import { connectTemporalClient, createFlows } from "../../src/temporal/flows.js";
import { createWorkerPair } from "../../src/temporal/worker.js";
import { NativeConnection } from "@temporalio/worker";
import type { Client } from "@temporalio/client";
import { testEnv } from "../setup/env.js";
import { cloneTemplateDatabase } from "../setup/test-database.js";
import { testWorkflowBundle } from "./workflow-bundle.js";
import { sealedColumnsOutsideRegistry } from "./sealed-values.js";

export interface TestApp {
  baseUrl: string;
  port: number;
  db: Database;
  store: EphemeralStore;
  temporal: Client;
  config: Config;
  deps: Deps;
  /** The webhook outbox dispatcher of this app (running unless startTestApp was told otherwise). */
  dispatcher: Dispatcher;
  /** The key prefix of this app's store (a second api process of the same deployment shares it). */
  storePrefix: string;
  /** A new tenant. Tenants made with the same ownerEmail share the owner's account (and so its member token). */
  bootstrap(opts?: Parameters<typeof bootstrapTenant>[1]): Promise<BootstrapResult>;
  stop(): Promise<void>;
}

/**
 * The run's shared database, for tests that start no app (an app has its own: TestApp.db). Migrations run once
 * per database: test files share this one and migrate() holds an advisory lock.
 */
export async function migratedDatabase(): Promise<Database> {
  const db = connectDatabase(testEnv().databaseUrl, { max: 10 });
  await migrate(db);
  return db;
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    host: "127.0.0.1",
    port: 0,
    publicUrl: "http://localhost:8080",
    dataDir: "/nonexistent",
    databaseUrl: testEnv().databaseUrl,
    redisUrl: testEnv().redisUrl,
    temporalAddress: testEnv().temporalAddress,
    temporalNamespace: "default",
    temporalTaskQueue: `test-${randomUUID()}`,
    temporalCliPath: undefined,
    embeddedPostgresPort: 0,
    embeddedTemporalPort: 0,
    sealingKeys: [{ id: "test", key: randomBytes(32) }],
    maxBodyBytes: 64 * 1024,
    rateLimitPerMinute: 100_000,
    directUnary: true,
    migrateOnStart: true,
    logLevel: "silent",
    metricsEnabled: true,
    // No worker listener: the test app serves its worker's metrics on its API port, as the dev role does.
    workerPort: 0,
    webhooks: DEFAULT_WEBHOOK_SETTINGS,
    sdkEvents: DEFAULT_SDK_EVENT_LIMITS,
    corsOriginCacheMs: 5000,
    verifications: DEFAULT_VERIFICATION_SETTINGS,
    externalSignIn: DEFAULT_EXTERNAL_SIGN_IN_SETTINGS,
    sessionMaxAgeSeconds: DEFAULT_SESSION_MAX_AGE_SECONDS,
    // A backup key of its own, as in production; no cloud drive unless a test starts its peer (port 9: discard).
    backups: { sealingKeys: [{ id: "backup-test", key: randomBytes(32) }], cloudDriveUrl: "http://127.0.0.1:9" },
    // Every test calls from 127.0.0.1; the SDK limits are tested on their own (test/e2e/sdk-rate-limits.test.ts).
    sdkRateLimits: { perAddressPer10s: 0, signInPerAddressPerMinute: 0 },
    trustedProxies: [],
    reconciler: DEFAULT_RECONCILER_SETTINGS,
    chains: DEFAULT_CHAIN_SETTINGS,
    ramps: DEFAULT_RAMP_SETTINGS,
    // What the run set (test/setup/undeclared-errors.ts): errors an RPC does not declare answer 500 and fail the run.
    undeclaredErrors: undeclaredErrorSettings(process.env),
    ...overrides,
  };
}

/**
 * The whole service in this process: real Postgres, Redis and Temporal (workers on a task queue of its own
 * and on its webhook queue, as the worker role runs them), the dual HTTP/1.1 + h2c server on a random
 * loopback port. Each app is a deployment of its own, as in production: its own database (cloned from the
 * run's migrated template), sealing key, task queues and Redis prefix; so its dispatcher relays every event
 * of its database, and no other app ever meets its sealed secrets.
 */
export async function startTestApp(
  overrides: Partial<Config> = {},
  /** storePrefix: "" for an app whose store another process (the CLI, which uses no prefix) must share. */
  opts: { dispatcher?: boolean; storePrefix?: string } = {},
): Promise<TestApp> {
  const database = await cloneTemplateDatabase(testEnv().databaseUrl, testEnv().templateDatabase);
  const config = testConfig({ databaseUrl: database.url, ...overrides });
  const db = connectDatabase(database.url, { max: 10 });
  const storePrefix = opts.storePrefix ?? `test:${randomUUID()}:`;
  const store = await createStore(config.redisUrl, { keyPrefix: storePrefix });
  const temporal = await connectTemporalClient(config.temporalAddress!, config.temporalNamespace);
  // One registry per app, as per process: the app's /metrics counts its own requests, sign-ins and flows.
  const metrics = createProcessMetrics({ enabled: config.metricsEnabled });
  const deps = buildDeps({ config, db, store, flows: metrics.flows(createFlows(temporal, config.temporalTaskQueue)), observer: metrics.observer });
  const connection = await NativeConnection.connect({ address: config.temporalAddress! });
  const worker = await createWorkerPair({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.temporalTaskQueue,
    activities: createActivities(deps),
    workflowBundle: await testWorkflowBundle(),
    deliverySlots: config.webhooks.deliverySlots,
  });
  const running = worker.run();
  const server = createDualServer(
    createApiHandler(deps, [
      databaseCheck(db),
      { name: "worker", check: async () => worker.getState() === "RUNNING" },
    ], { metrics }),
  );
  const port = await server.listen(0, "127.0.0.1");
  const dispatcher = createDispatcher(deps);
  if (opts.dispatcher !== false) await dispatcher.start();
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    db,
    store,
    temporal,
    config,
    deps,
    dispatcher,
    storePrefix,
    bootstrap: (opts) => bootstrapTenant(db, opts),
    async stop() {
      await dispatcher.stop();
      await server.close();
      worker.shutdown();
      await running;
      await connection.close();
      await temporal.connection.close();
      await store.close();
      // Every sealed value this app's flows stored is in a column key rotation reseals: a sealed column
      // missing from src/domain/sealing/registry.ts would keep an old key in use forever. (A database a test
      // made unreachable is not scanned.)
      const unregistered = await sealedColumnsOutsideRegistry(db).catch(() => []);
      await closeDatabase(db);
      await database.drop();
      if (unregistered.length)
        throw new Error(`sealed values in columns the registry of sealed columns (src/domain/sealing/registry.ts) lacks: ${unregistered.join(", ")}`);
    },
  };
}
