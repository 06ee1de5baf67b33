import { allHandlersFinished, condition, continueAsNew, defineSignal, setHandler, workflowInfo } from "@temporalio/workflow";

/**
 * The workflow side of an actor: one long-lived workflow per entity (src/temporal/actor.ts has the client
 * side and the id format). It keeps its state outside the history (Postgres) or in its continue-as-new
 * input, is woken by the `wake` signal (sent with signalWithStart, so a finished actor is started again),
 * continues as new before its history grows large, and ends after a quiet while with nothing to do.
 * Operations that need an answer (a threshold wallet's operations) are Updates on the same workflow; the policy
 * below waits for their handlers before continuing as new or ending.
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
