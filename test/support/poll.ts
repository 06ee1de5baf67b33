import { inspect } from "node:util";

/** How to wait for something the code under test does in its own time (a worker, a delivery, a process). */
export interface WaitOptions<T> {
  /** When the value is the one awaited; by default, when it is truthy. */
  until?: (value: T) => boolean;
  /** Give up after this long (default 20 s). */
  timeoutMs?: number;
  /** Between probes (default 100 ms). */
  intervalMs?: number;
  /**
   * A probe that throws has not got there yet (a server still starting): try again, and name its last error
   * if time runs out. By default an error ends the wait at once: it is the test's failure, not a delay.
   */
  retryErrors?: boolean;
}

type Falsy = undefined | null | false | 0 | "";

/**
 * Probes until the value is the awaited one and returns it, or fails naming what was awaited, for how long,
 * and the last value (or error) seen. The one way tests wait for a condition instead of sleeping.
 */
export async function waitFor<T>(what: string, probe: () => T | Promise<T>, opts?: WaitOptions<T> & { until?: undefined }): Promise<Exclude<T, Falsy>>;
export async function waitFor<T>(what: string, probe: () => T | Promise<T>, opts: WaitOptions<T> & { until: (value: T) => boolean }): Promise<T>;
export async function waitFor<T>(what: string, probe: () => T | Promise<T>, opts: WaitOptions<T> = {}): Promise<T> {
  const { until = (v: T) => Boolean(v), timeoutMs = 20_000, intervalMs = 100, retryErrors = false } = opts;
  const started = Date.now();
  let last: { value: T } | { error: unknown } | undefined;
  for (;;) {
    try {
      const value = await probe();
      if (until(value)) return value;
      last = { value };
    } catch (error) {
      if (!retryErrors) throw error;
      last = { error };
    }
    if (Date.now() - started >= timeoutMs) break;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  const seen = !last ? "nothing" : "error" in last ? `error ${String(last.error)}` : `value ${inspect(last.value, { depth: 4, breakLength: Infinity })}`;
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last ${seen}`);
}
