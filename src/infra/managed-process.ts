import { spawn, type ChildProcess } from "node:child_process";

/** A child server process that is killed when we stop it and, failing that, when this process exits. */
export interface ManagedProcess {
  readonly child: ChildProcess;
  /** Resolves with the exit code (or signal name) once the child is gone. */
  readonly exited: Promise<number | string>;
  /** The last lines the child printed, for error messages. */
  recentOutput(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the child is gone. Safe to call twice. */
  stop(graceMs?: number): Promise<void>;
}

// Children alive right now: one 'exit' listener for all of them instead of one per child, so that many
// starts in one test run do not trip Node's MaxListeners warning.
const alive = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous: a SIGKILL is all we can still do. It covers normal exits and
  // process.exit(); a parent killed by a signal without a handler leaves children behind (the caller's
  // signal handling is expected to call process.exit()).
  process.on("exit", () => {
    for (const child of alive) {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
    }
  });
}

export function startManagedProcess(
  command: string,
  args: string[],
  opts: { log?: (line: string) => void; env?: NodeJS.ProcessEnv; cwd?: string; keepLines?: number } = {},
): ManagedProcess {
  installExitHook();
  const keep = opts.keepLines ?? 40;
  const tail: string[] = [];
  const child = spawn(command, args, { env: opts.env ?? process.env, cwd: opts.cwd, stdio: ["ignore", "pipe", "pipe"] });
  alive.add(child);

  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split(/\r?\n/)) {
      if (!line.trim()) continue;
      tail.push(line);
      if (tail.length > keep) tail.shift();
      opts.log?.(line);
    }
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);

  const exited = new Promise<number | string>((resolve) => {
    // 'error' (e.g. ENOENT) may come without 'exit'; 'close' always follows either.
    child.once("error", (err) => tail.push(`spawn error: ${err.message}`));
    child.once("close", (code, signal) => {
      alive.delete(child);
      resolve(code ?? signal ?? "unknown");
    });
  });

  let stopping: Promise<void> | undefined;
  const stop = (graceMs = 10_000): Promise<void> => {
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null || !alive.has(child)) {
        await exited;
        return;
      }
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      try {
        await exited;
      } finally {
        clearTimeout(timer);
      }
    })();
    return stopping;
  };

  return { child, exited, recentOutput: () => tail.join("\n"), stop };
}
