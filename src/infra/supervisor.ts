import { setTimeout as sleep } from "node:timers/promises";

/** A running child server as the supervisor sees it. */
export interface SupervisedChild {
  /** Resolves with the exit code (or signal name) once the child is gone. */
  exited: Promise<number | string>;
  stop(): Promise<void>;
}

export interface SupervisorOptions {
  /** For log lines: "embedded postgres", "temporal dev server". */
  name: string;
  /** Starts the child again on the same ports and data dir, so that its clients just reconnect. */
  start(): Promise<SupervisedChild>;
  log: { info(msg: string, fields?: Record<string, unknown>): void; warn(msg: string, fields?: Record<string, unknown>): void; error(msg: string, fields?: Record<string, unknown>): void };
  /** First delay before a restart; doubled after each failed one up to maxBackoffMs. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** A child that stayed up this long counts as healthy again: the next restart starts from initialBackoffMs. */
  resetAfterMs?: number;
}

export interface Supervisor {
  /** Restarts so far (for tests and logs). */
  readonly restarts: number;
  /**
   * Restarts no more, leaving the child running: called first on shutdown, when a Ctrl-C in a terminal also
   * reaches the children (same process group) and their exit is no crash.
   */
  retire(): void;
  /** Stops the child and restarts no more. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Keeps an embedded child server running: when it exits on its own (crash, OOM kill, an operator's kill),
 * it is started again after a backoff that doubles up to a cap. It never gives up: a dependency that cannot
 * start keeps being retried at the cap (every attempt logged), since the process is useless without it and
 * an operator fixing the cause (a full disk, a port taken) should not have to restart Sigil as well.
 */
export function supervise(first: SupervisedChild, opts: SupervisorOptions): Supervisor {
  const initial = opts.initialBackoffMs ?? 500;
  const cap = opts.maxBackoffMs ?? 30_000;
  const resetAfter = opts.resetAfterMs ?? 60_000;
  let current: SupervisedChild | undefined = first;
  let stopped = false;
  let restarts = 0;
  const stopSignal = new AbortController();

  const loop = async () => {
    let startedAt = Date.now();
    let backoff = initial;
    while (!stopped && current) {
      const code = await current.exited;
      if (stopped) return;
      current = undefined;
      if (Date.now() - startedAt >= resetAfter) backoff = initial;
      opts.log.error(`${opts.name} exited unexpectedly; restarting`, { exitCode: code, restartInMs: backoff });
      let failures = 0;
      while (!stopped && !current) {
        try {
          await sleep(backoff, undefined, { signal: stopSignal.signal });
        } catch {
          return; // stopped while waiting
        }
        backoff = Math.min(backoff * 2, cap);
        try {
          const child = await opts.start();
          if (stopped) {
            await child.stop();
            return;
          }
          current = child;
          startedAt = Date.now();
          restarts++;
          opts.log.info(`${opts.name} restarted`, { restarts, afterFailedAttempts: failures });
        } catch (err) {
          failures++;
          opts.log.error(`${opts.name} restart failed; retrying`, {
            attempt: failures,
            retryInMs: backoff,
            error: err instanceof Error ? err.message.split("\n")[0] : String(err),
          });
        }
      }
    }
  };
  const running = loop().catch((err) => opts.log.error(`${opts.name} supervisor failed`, { error: String(err) }));

  const retire = () => {
    stopped = true;
    stopSignal.abort();
  };
  let stopping: Promise<void> | undefined;
  return {
    get restarts() {
      return restarts;
    },
    retire,
    stop() {
      stopping ??= (async () => {
        retire();
        // The loop is waiting on the current child's exit (or is between children): stop that child first.
        await current?.stop();
        await running;
      })();
      return stopping;
    },
  };
}
