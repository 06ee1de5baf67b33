import {
  allHandlersFinished,
  condition,
  continueAsNew,
  currentUpdateInfo,
  defineSignal,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from "@temporalio/workflow";
import { SEARCH_ATTRIBUTES } from "./search-attributes.js";

/**
 * The workflow side of an actor: one long-lived workflow per entity (src/temporal/actor.ts has the client
 * side and the id format). It keeps its state outside the history (Postgres) or in its continue-as-new
 * input, is woken by the `wake` signal (sent with signalWithStart, so a finished actor is started again),
 * continues as new before its history grows large, and ends after a quiet while with nothing to do.
 * Operations that need an answer (a threshold wallet's operations) are Updates on the same workflow, run one
 * at a time by actorOperations below, which also owns the actor's idle end and its continue-as-new between
 * operations: an actor built on it is only its operations.
 */
export const wakeSignal = defineSignal("wake");

export interface ActorPolicy {
  /** Quiet time (no work left, no wake) after which the actor ends. */
  idleMs: number;
  /** History events after which the actor continues as new (the server also suggests it). */
  maxHistoryEvents: number;
}

export const DEFAULT_ACTOR_POLICY: ActorPolicy = { idleMs: 60_000, maxHistoryEvents: 2_000 };

export interface ActorInbox {
  /** Waits until woken or `ms` passed (null: until woken); true when woken. Consumes the wake. */
  wait(ms: number | null): Promise<boolean>;
  /** Time to continue as new (call at a point where the actor's state is all in its input). */
  historyFull(): boolean;
  /** Continues as new once Update/signal handlers are done. */
  continueAsNew<A extends unknown[]>(...args: A): Promise<never>;
}

export function actorInbox(policy: ActorPolicy = DEFAULT_ACTOR_POLICY): ActorInbox {
  let woken = false;
  setHandler(wakeSignal, () => {
    woken = true;
  });
  return {
    async wait(ms) {
      if (!woken) {
        if (ms === null) await condition(() => woken);
        else if (ms > 0) await condition(() => woken, ms);
      }
      const was = woken;
      woken = false;
      return was;
    },
    historyFull: () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > policy.maxHistoryEvents,
    async continueAsNew(...args) {
      await condition(allHandlersFinished);
      return continueAsNew(...args);
    },
  };
}

/**
 * A first-in first-out lock for workflow code, the named mutex of Temporal's safe-message-handlers sample
 * (which takes async-mutex's). A promise chain: deterministic (promises settle in order, no timer, no
 * command), and each holder starts when the one before it settled, however it ended.
 */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

export interface ActorOperations {
  /**
   * Runs an operation (an Update's handler body) after every operation accepted before it, never beside one.
   * `operationId` is the Update's id: a client retrying an operation with the same id reaches the same
   * Update, and activities key their writes by it.
   */
  serialised<T>(operation: string, run: (operationId: string) => Promise<T>): Promise<T>;
  /**
   * The actor's main loop: waits for operations; between two of them (none running) continues as new with
   * `args` when the history is full, and ends after `idleMs` without a new one.
   */
  serve<A extends unknown[]>(...args: A): Promise<void>;
}

/**
 * The queue, the idle end and the continue-as-new of an actor whose operations are Updates. Call it before
 * registering the handlers. Each operation names itself in the SigilOperation search attribute and the
 * workflow's current details, so that an operator sees what the actor runs (or ran last).
 */
export function actorOperations(policy: ActorPolicy = DEFAULT_ACTOR_POLICY): ActorOperations {
  const inbox = actorInbox(policy);
  const lock = new Mutex();
  let accepted = 0;
  let finished = 0;
  return {
    serialised(operation, run) {
      accepted++;
      // Read while the handler runs: the Update's id, or a name unique in this run for a signal's work.
      const operationId = currentUpdateInfo()?.id ?? `${operation}-${accepted}`;
      const result = lock.runExclusive(() => {
        upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.operation, value: operation }]);
        setCurrentDetails(`Running ${operation} (${operationId}).`);
        return run(operationId);
      });
      void result
        .then(
          () => setCurrentDetails(`Idle; last: ${operation}.`),
          () => setCurrentDetails(`Idle; last: ${operation} (failed).`),
        )
        .then(() => finished++);
      return result;
    },
    async serve(...args) {
      for (;;) {
        const seen = accepted;
        // Woken by a new operation (or a full history); otherwise, after a quiet while, the actor ends.
        const busy = await condition(() => accepted !== seen || inbox.historyFull(), policy.idleMs);
        // Continue as new / end only between operations (inbox.continueAsNew also waits for every handler).
        await condition(() => accepted === finished);
        if (inbox.historyFull()) return inbox.continueAsNew(...args);
        if (!busy) return;
      }
    },
  };
}
