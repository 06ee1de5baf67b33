import { Presets, SingleBar } from "cli-progress";

export interface Progress {
  /** n more items done (default 1). */
  tick(n?: number): void;
  /** Stops the bar (or prints the final line); call once, also after a failure. */
  done(): void;
}

/** Plain lines at most this often when there is no terminal to draw on (logs, CI, a pipe). */
const PLAIN_INTERVAL_MS = 2000;

/**
 * Progress of long CLI work, always on stderr so that stdout stays the result (a table or --json). A bar
 * is drawn only for a person at a terminal; a pipe or a log file gets a plain "label: n/total" line now and
 * then instead of carriage-return redraws, and --json callers (scripts) never get a bar mixed into stderr.
 */
export function createProgress(opts: { total: number; label: string; json: boolean }): Progress {
  const total = Math.max(0, opts.total);
  let count = 0;
  if (process.stderr.isTTY && !opts.json) {
    const bar = new SingleBar(
      { format: `${opts.label} [{bar}] {value}/{total} {percentage}% | eta {eta_formatted}`, stream: process.stderr, hideCursor: true, clearOnComplete: false },
      Presets.shades_classic,
    );
    bar.start(total, 0);
    let stopped = false;
    return {
      tick(n = 1) {
        count += n;
        if (count > bar.getTotal()) bar.setTotal(count);
        bar.update(count);
      },
      done() {
        if (stopped) return;
        stopped = true;
        bar.stop();
      },
    };
  }
  let lastLine = Date.now();
  let finished = false;
  const line = () => process.stderr.write(`${opts.label}: ${count}/${Math.max(total, count)}\n`);
  return {
    tick(n = 1) {
      count += n;
      const now = Date.now();
      if (now - lastLine >= PLAIN_INTERVAL_MS) {
        lastLine = now;
        line();
      }
    },
    done() {
      if (finished) return;
      finished = true;
      line();
    },
  };
}
