import { Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type Client } from "@temporalio/client";
import { setTimeout as sleep } from "node:timers/promises";
import { DomainError } from "../errors.js";

/**
 * How the process's Temporal client stops without crashing it. Two hazards, both seen as a process that died
 * about 6 s after SIGTERM on an uncaught `Channel has been shut down`:
 * - a call in flight at shutdown (an Update waiting for a room's run) is retried by the client's retry
 *   interceptor from a timer; a retry that fires after the channel was closed throws from that timer, where
 *   nothing can catch it. So the retries stop first, the timers already set are waited out, then the channel
 *   closes (`closeTemporalClient`).
 * - a request still waiting on the engine when the API's drain runs out had its connection cut. Its calls are
 *   cancelled instead (`EngineCalls.cancel`), so the request answers 503 "retry" before its socket closes.
 */

/** The client's default retries, which can be told to stop, with the moment the last retry already set fires. */
function stoppableRetries() {
  const defaults = defaultGrpcRetryOptions();
  let stopped = false;
  let lastDueAt = 0;
  const interceptor = makeGrpcRetryInterceptor({
    retryableDecider: (attempt, status) => !stopped && defaults.retryableDecider(attempt, status),
    delayFunction(attempt, status) {
      const ms = defaults.delayFunction(attempt, status);
      lastDueAt = Math.max(lastDueAt, Date.now() + ms);
      return ms;
    },
  });
  return {
    interceptor,
    stop() {
      stopped = true;
    },
    /** Waits (at most ms) until every retry already set has fired; false when one is due after that. */
    async settled(ms: number): Promise<boolean> {
      const wait = lastDueAt - Date.now();
      if (wait > ms) return false;
      // Timers fire in the order they fall due: one that falls due after the last retry runs after it.
      if (wait > -50) await sleep(Math.max(wait, 0) + 50);
      return true;
    },
  };
}

const retriesOf = new WeakMap<object, ReturnType<typeof stoppableRetries>>();

/** A client connection with the default retries, which `closeTemporalClient` can close safely. */
export async function connectStoppable(address: string): Promise<Connection> {
  const retries = stoppableRetries();
  const connection = await Connection.connect({ address, interceptors: [retries.interceptor] });
  retriesOf.set(connection, retries);
  return connection;
}

/**
 * Closes the client's connection once no retry can fire on it. When a retry is still due past
 * `waitMs`, the connection is left open (the process is exiting; an open channel holds nothing up) rather
 * than closed under a timer that would throw.
 */
export async function closeTemporalClient(client: Client, waitMs = 2_000): Promise<boolean> {
  const retries = retriesOf.get(client.connection);
  retries?.stop();
  if (retries && !(await retries.settled(waitMs))) return false;
  await client.connection.close();
  return true;
}

/** The engine calls the process makes on behalf of requests and its own loops, cancellable at shutdown. */
export interface EngineCalls {
  /** Runs fn with every engine call it makes cancellable by cancel(); refused (503) once cancelled. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Cancels the calls in flight (each fails with 503 `workflow_engine_unavailable`) and refuses new ones. */
  cancel(): void;
  /** Resolves true once no call is in flight, false after ms. */
  idle(ms: number): Promise<boolean>;
}

/** The error of a call cut short by the process's stop: nothing waited on it; the client retries elsewhere or once the service is back. */
const stopping = () =>
  new DomainError("unavailable", "workflow_engine_unavailable", "workflow engine unavailable: the service is stopping, retry later", { dependency: "workflow_engine" });

export function createEngineCalls(client: Client): EngineCalls {
  const controller = new AbortController();
  let inFlight = 0;
  let onIdle: (() => void) | undefined;
  return {
    async run(fn) {
      if (controller.signal.aborted) throw stopping();
      inFlight++;
      try {
        return await client.connection.withAbortSignal(controller.signal, fn);
      } catch (err) {
        throw controller.signal.aborted ? stopping() : err;
      } finally {
        if (--inFlight === 0) onIdle?.();
      }
    },
    cancel: () => controller.abort(),
    async idle(ms) {
      if (inFlight === 0) return true;
      const idle = new Promise<boolean>((resolve) => (onIdle = () => resolve(true)));
      return Promise.race([idle, sleep(ms, false, { ref: false })]);
    },
  };
}
