import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type UpdateDefinition,
  type Workflow,
  type WorkflowStartOptions,
} from "@temporalio/client";
import { wakeSignal } from "../workflows/actor.js";

/**
 * The client side of actors (src/workflows/actor.ts has the workflow side): one long-lived workflow per
 * entity, id `<kind>/<key>`, woken with signalWithStart so that a message never waits for an actor that
 * finished (a finished actor is started again: ALLOW_DUPLICATE) and never starts a second one (one running
 * workflow per id). Operations that need an answer go through `updateActor` (Update-with-Start), on the same
 * id and rules.
 */
export const actorId = (kind: string, key: string) => `${kind}/${key}`;

export interface ActorAddress<W extends Workflow> {
  workflow: W;
  workflowId: string;
  taskQueue: string;
  args: Parameters<W>;
  staticSummary: string;
  /** At least the environment (SigilEnvironmentId), so an operator filtering by it finds the actor. */
  typedSearchAttributes: WorkflowStartOptions<W>["typedSearchAttributes"];
  memo?: Record<string, unknown>;
}

/** The start options every actor start shares (Update-with-Start and signal-with-start alike). */
function startOptions<W extends Workflow>(a: ActorAddress<W>) {
  return {
    workflowId: a.workflowId,
    taskQueue: a.taskQueue,
    args: a.args,
    workflowIdReusePolicy: "ALLOW_DUPLICATE" as const,
    staticSummary: a.staticSummary,
    typedSearchAttributes: a.typedSearchAttributes,
    ...(a.memo ? { memo: a.memo } : {}),
  };
}

/**
 * Runs an Update on the actor and returns its result, starting the actor when it is not running
 * (Update-with-Start: the running one is used, a finished one is started again). `updateId` makes the call
 * idempotent within a run: the same id reaches the same Update rather than a second one.
 */
export async function updateActor<W extends Workflow, Ret, Args extends unknown[]>(
  client: Client,
  a: ActorAddress<W>,
  update: UpdateDefinition<Ret, Args>,
  args: Args,
  updateId?: string,
): Promise<Ret> {
  const start = new WithStartWorkflowOperation(a.workflow, {
    ...startOptions(a),
    workflowIdConflictPolicy: "USE_EXISTING",
    // Generic over W, as in wakeActor: the SDK cannot relate Parameters<W> to its own argument type.
  } as unknown as WorkflowStartOptions<W> & { workflowIdConflictPolicy: "USE_EXISTING" });
  return client.workflow.executeUpdateWithStart(update, { args, startWorkflowOperation: start, ...(updateId ? { updateId } : {}) });
}

/** Wakes the actor, starting it when it is not running. */
export async function wakeActor<W extends Workflow>(client: Client, a: ActorAddress<W>): Promise<void> {
  const options = { ...startOptions(a), signal: wakeSignal, signalArgs: [] as [] };
  // Generic over W: the SDK cannot relate Parameters<W> to its own argument type, hence the cast.
  await client.workflow.signalWithStart(a.workflow, options as unknown as Parameters<typeof client.workflow.signalWithStart<W, []>>[1]);
}

/** Wakes each distinct actor once, `concurrency` at a time; failures are returned, not thrown. */
export async function wakeActors<W extends Workflow>(
  client: Client,
  actors: ActorAddress<W>[],
  concurrency = 16,
): Promise<{ workflowId: string; error: unknown }[]> {
  const unique = [...new Map(actors.map((a) => [a.workflowId, a])).values()];
  const failed: { workflowId: string; error: unknown }[] = [];
  let next = 0;
  const lane = async () => {
    while (next < unique.length) {
      const a = unique[next++]!;
      try {
        await wakeActor(client, a);
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) failed.push({ workflowId: a.workflowId, error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, unique.length) }, lane));
  return failed;
}
