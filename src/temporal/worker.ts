import { fileURLToPath } from "node:url";
import { NativeConnection, Worker, type WorkerOptions } from "@temporalio/worker";
import { createActivities, type ActivityDeps } from "../activities/index.js";

/** The workflows entry point the worker bundles (TypeScript is compiled by the bundler). */
export const workflowsPath = fileURLToPath(new URL("../workflows/index.ts", import.meta.url));

export interface WorkerSetup {
  address: string;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** A prebuilt bundle (tests bundle once per file); otherwise workflowsPath is bundled at start. */
  workflowBundle?: WorkerOptions["workflowBundle"];
}

export async function createWorker(setup: WorkerSetup): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: setup.address });
  const worker = await Worker.create({
    connection,
    namespace: setup.namespace,
    taskQueue: setup.taskQueue,
    activities: createActivities(setup.deps),
    ...(setup.workflowBundle ? { workflowBundle: setup.workflowBundle } : { workflowsPath }),
  });
  return { worker, connection };
}
