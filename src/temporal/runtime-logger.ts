import { Runtime } from "@temporalio/worker";
import type { Logger } from "../log.js";

type TemporalLevel = "TRACE" | "DEBUG" | "INFO" | "WARN" | "ERROR";
const ORDER: Record<TemporalLevel, number> = { TRACE: 0, DEBUG: 1, INFO: 2, WARN: 3, ERROR: 4 };

/**
 * Sends the Temporal SDK's own logs (worker state, workflow bundling) through our JSON logger. Its INFO
 * lines (the bundler's module listing) are noise for an operator, so only WARN and up pass unless our
 * level is debug. Must run before the first NativeConnection or Worker of the process.
 */
export function installTemporalRuntimeLogger(log: Logger, debug: boolean): void {
  const min = debug ? ORDER.DEBUG : ORDER.WARN;
  const forward = (level: TemporalLevel, message: string, meta?: Record<string, unknown>) => {
    if (ORDER[level] < min) return;
    const fields = { source: "temporal", ...meta };
    if (level === "ERROR") log.error(message, fields);
    else if (level === "WARN") log.warn(message, fields);
    else if (level === "INFO") log.info(message, fields);
    else log.debug(message, fields);
  };
  try {
    Runtime.install({
      // The SDK would shut workers down on SIGINT/SIGTERM by itself, racing src/main.ts's ordered, bounded
      // shutdown (which stops the worker in its turn).
      shutdownSignals: [],
      logger: {
        log: forward,
        trace: (m, meta) => forward("TRACE", m, meta),
        debug: (m, meta) => forward("DEBUG", m, meta),
        info: (m, meta) => forward("INFO", m, meta),
        warn: (m, meta) => forward("WARN", m, meta),
        error: (m, meta) => forward("ERROR", m, meta),
      },
    });
  } catch {
    // Already installed in this process (a second runtime in tests): keep the first.
  }
}
