import { Connection, type Client } from "@temporalio/client";
import type { Flows } from "../domain/deps.js";
import { unavailable } from "../errors.js";
import type { Logger } from "../log.js";
import type { EngineCalls } from "./client-shutdown.js";

/**
 * Whether the Temporal frontend answers, probed in the background about once a second. /healthz reads it,
 * and workflow starts fail fast with `workflow_engine_unavailable` while it is known down, instead of
 * waiting out the client's own retries (about 20 s) for a 500.
 */
export interface EngineMonitor {
  /** Reachable per a probe at most about a second old (probes now when the last one is older). */
  check(): Promise<boolean>;
  /** The latest probe failed: callers fail fast rather than wait for the client's retries. */
  knownDown(): boolean;
  /** Runs fn with a gRPC deadline of ms on every call it makes to the engine. */
  withDeadline<T>(ms: number, fn: () => Promise<T>): Promise<T>;
  stop(): void;
}

export interface EngineMonitorOptions {
  intervalMs?: number;
  /** Deadline of one probe. */
  probeTimeoutMs?: number;
}

export function createEngineMonitor(client: Client, address: string, log: Logger, opts: EngineMonitorOptions = {}): EngineMonitor {
  const interval = opts.intervalMs ?? 1_000;
  const probeTimeout = opts.probeTimeoutMs ?? 1_500;
  // Probes go over a connection of their own without the client's retry interceptor: retried until the
  // deadline, a probe would report an engine that is down as up whenever it comes back within the deadline.
  const probeConnection = Connection.lazy({ address, interceptors: [] });
  let last: { at: number; ok: boolean } = { at: Date.now(), ok: true };
  let inflight: Promise<boolean> | undefined;
  let stopped = false;

  const withDeadline = <T>(ms: number, fn: () => Promise<T>) => client.connection.withDeadline(Date.now() + ms, fn);

  const probe = (): Promise<boolean> => {
    inflight ??= (async () => {
      let ok: boolean;
      try {
        await probeConnection.withDeadline(Date.now() + probeTimeout, () => probeConnection.workflowService.getSystemInfo({}));
        ok = true;
      } catch {
        ok = false;
      }
      if (ok !== last.ok && !stopped) {
        if (ok) log.info("workflow engine reachable again");
        else log.error("workflow engine unreachable");
      }
      last = { at: Date.now(), ok };
      inflight = undefined;
      return ok;
    })();
    return inflight;
  };

  const timer = setInterval(() => void probe(), interval);
  timer.unref();

  return {
    async check() {
      if (Date.now() - last.at <= interval + probeTimeout) return last.ok;
      return probe();
    },
    knownDown: () => !last.ok,
    withDeadline,
    stop() {
      stopped = true;
      clearInterval(timer);
      void probeConnection.close().catch(() => undefined);
    },
  };
}

/** A workflow start normally takes milliseconds; one that takes this long means the engine is in trouble. */
export const START_DEADLINE_MS = 5_000;

/**
 * The flows, failing fast while the engine is known down, and with a deadline on starts (the client would
 * otherwise retry an unreachable frontend for about 20 s). The errors that come out are classified as
 * `workflow_engine_unavailable` by src/infra/dependency-errors.ts (gRPC UNAVAILABLE / DEADLINE_EXCEEDED).
 */
export function guardFlows(flows: Flows, engine: EngineMonitor, calls: EngineCalls): Flows {
  const guard = <T>(fn: () => Promise<T>, deadlineMs?: number): Promise<T> => {
    if (engine.knownDown()) return Promise.reject(unavailable("workflow_engine"));
    // Every call is cancellable by the process's stop (./client-shutdown.ts): answered 503, never cut off.
    return calls.run(() => (deadlineMs ? engine.withDeadline(deadlineMs, fn) : fn()));
  };
  return {
    // execute() waits for the result, which can legitimately take a while: no deadline on the whole call.
    recoverWallets: (input) => guard(() => flows.recoverWallets(input)),
    startExport: (input) => guard(() => flows.startExport(input), START_DEADLINE_MS),
    startWebhookDelivery: (input) => guard(() => flows.startWebhookDelivery(input), START_DEADLINE_MS),
    wakeWebhookEndpoints: (endpoints) => guard(() => flows.wakeWebhookEndpoints(endpoints), START_DEADLINE_MS),
    // An Update waits for the operation (a signature, a new share set): no deadline on the whole call.
    runWaasRoom: (input) => guard(() => flows.runWaasRoom(input)),
    runWaasBackup: (input) => guard(() => flows.runWaasBackup(input)),
    runWaasRecover: (input) => guard(() => flows.runWaasRecover(input)),
  };
}
