import path from "node:path";
import { fileURLToPath } from "node:url";
import { NativeConnection, Worker, type WorkerOptions } from "@temporalio/worker";
import { createActivities, type ActivityDeps } from "../activities/index.js";
import { taskQueues } from "./ids.js";
import { tracingWorkerOptions } from "./tracing.js";
import { cachedWorkflowBundle } from "./workflow-bundle.js";

/** The workflows entry point the worker bundles (TypeScript is compiled by the bundler). */
export const workflowsPath = fileURLToPath(new URL("../workflows/index.ts", import.meta.url));

export interface WorkerSetup {
  address: string;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** A prebuilt bundle (tests bundle once per file); otherwise the one cached under <dataDir>/cache, or built. */
  workflowBundle?: WorkerOptions["workflowBundle"];
}

/** What runs, is watched and is stopped like one Temporal worker (the pair of workers below is one). */
export type RunnableWorker = Pick<Worker, "run" | "shutdown" | "getState">;

/**
 * The process's workers: one on the interactive queue (exports, recovery: the SDK's default limits) and one
 * on the webhook queue (taskQueues in ids.ts), each with slots of its own, so that no delivery backlog takes
 * the slots an interactive flow needs. A delivery attempt is a local activity that holds its workflow-task
 * slot while the request is in flight (up to the request timeout against a black hole), so the webhook
 * worker's workflow-task and local-activity slots are sized together (`deliverySlots`), well above one
 * environment's in-flight bound (`concurrencyPerEnvironment`). Both register every workflow and activity:
 * deliveries started on the interactive queue before the split still finish there.
 */
export async function createWorkerPair(setup: {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: object;
  workflowBundle: NonNullable<WorkerOptions["workflowBundle"]>;
  deliverySlots: number;
  extra?: Partial<WorkerOptions>;
}): Promise<RunnableWorker> {
  const queues = taskQueues(setup.taskQueue);
  // A tracing process's workers make activity spans and export the workflows' (./tracing.ts).
  const traced = await tracingWorkerOptions();
  const common = { connection: setup.connection, namespace: setup.namespace, activities: setup.activities, workflowBundle: setup.workflowBundle, ...traced, ...setup.extra };
  const interactive = await Worker.create({ ...common, taskQueue: queues.interactive });
  const webhooks = await Worker.create({
    ...common,
    taskQueue: queues.webhooks,
    maxConcurrentWorkflowTaskExecutions: setup.deliverySlots,
    maxConcurrentLocalActivityExecutions: setup.deliverySlots,
    // Endpoint actors' batches are activities (each holds a slot while it sends): as many as delivery slots,
    // and one environment holds at most batchLimits().perEnvironment of them (src/domain/webhooks/slots.ts).
    maxConcurrentActivityTaskExecutions: setup.deliverySlots,
  });
  return workerPair([interactive, webhooks]);
}

/** Runs the workers as one: when one stops or fails, the others are shut down and run() settles like it. */
function workerPair(workers: Worker[]): RunnableWorker {
  const shutdownAll = () => {
    for (const w of workers) if (w.getState() === "RUNNING") w.shutdown();
  };
  return {
    getState: () => workers.map((w) => w.getState()).find((s) => s !== "RUNNING") ?? "RUNNING",
    shutdown: () => {
      if (!workers.some((w) => w.getState() === "RUNNING")) workers[0]!.shutdown(); // throws like a Worker would
      shutdownAll();
    },
    async run() {
      const runs = workers.map((w) => w.run());
      await Promise.race(runs.map((r) => r.catch(() => undefined)));
      shutdownAll();
      const results = await Promise.allSettled(runs);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
      if (failed) throw failed.reason;
    },
  };
}

/** Where a process keeps its workflow bundle between starts (src/temporal/workflow-bundle.ts). */
export const workflowBundleCacheDir = (dataDir: string) => path.join(dataDir, "cache");

export async function createWorker(setup: WorkerSetup): Promise<{ worker: RunnableWorker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: setup.address });
  const worker = await createWorkerPair({
    connection,
    namespace: setup.namespace,
    taskQueue: setup.taskQueue,
    activities: createActivities(setup.deps),
    deliverySlots: setup.deps.config.webhooks.deliverySlots,
    // One bundle for both workers.
    workflowBundle: setup.workflowBundle ?? (await cachedWorkflowBundle(workflowBundleCacheDir(setup.deps.config.dataDir), undefined, { traced: setup.deps.config.tracing !== undefined })),
    extra: {
      // A bounded shutdown (SIGTERM must end the process within 10 s): activities get 2 s to finish, then are
      // cancelled (deliveries abort their request and are retried on their schedule); after 4 s the worker gives up waiting
      // (what is left then is redone after the restart: workflow tasks and activities are retried).
      shutdownGraceTime: "2s",
      shutdownForceTime: "4s",
    },
  });
  return { worker, connection };
}
