import { Runtime } from "@temporalio/worker";
import type { Logger } from "../log.js";
import { setCoreMetricsAddress } from "./core-metrics.js";

type TemporalLevel = "TRACE" | "DEBUG" | "INFO" | "WARN" | "ERROR";
const ORDER: Record<TemporalLevel, number> = { TRACE: 0, DEBUG: 1, INFO: 2, WARN: 3, ERROR: 4 };

/**
 * Sends the Temporal SDK's own logs (worker state, workflow bundling) through our JSON logger. Its INFO
 * lines (the bundler's module listing) are noise for an operator, so only WARN and up pass unless our
 * level is debug. Must run before the first NativeConnection or Worker of the process.
 */
export function installTemporalRuntimeLogger(log: Logger, debug: boolean, metricsBindAddress?: string): void {
  const min = debug ? ORDER.DEBUG : ORDER.WARN;
  const forward = (level: TemporalLevel, message: string, meta?: Record<string, unknown>) => {
    if (ORDER[level] < min) return;
    const fields = { source: "temporal", ...meta };
    if (level === "ERROR") log.error(message, fields);
    else if (level === "WARN") log.warn(message, fields);
    else if (level === "INFO") log.info(message, fields);
    else log.debug(message, fields);
  };
  const options = {
    // The SDK would shut workers down on SIGINT/SIGTERM by itself, racing src/main.ts's ordered, bounded
    // shutdown (which stops the worker in its turn).
    shutdownSignals: [] as NodeJS.Signals[],
    logger: {
      log: forward,
      trace: (m: string, meta?: Record<string, unknown>) => forward("TRACE", m, meta),
      debug: (m: string, meta?: Record<string, unknown>) => forward("DEBUG", m, meta),
      info: (m: string, meta?: Record<string, unknown>) => forward("INFO", m, meta),
      warn: (m: string, meta?: Record<string, unknown>) => forward("WARN", m, meta),
      error: (m: string, meta?: Record<string, unknown>) => forward("ERROR", m, meta),
    },
  };
  try {
    if (!metricsBindAddress) return void Runtime.install(options);
    try {
      // The core's own metrics, served on loopback and appended to this process's /metrics (./core-metrics.ts).
      const prometheus = { bindAddress: metricsBindAddress, countersTotalSuffix: true, useSecondsForDurations: true, unitSuffix: true };
      Runtime.install({ ...options, telemetryOptions: { metrics: { prometheus } } });
      setCoreMetricsAddress(metricsBindAddress);
    } catch (err) {
      // The exporter's port was taken in between: the worker runs without its core metrics rather than not at all.
      if (!/prometheus/i.test(String(err))) throw err;
      log.warn("the Temporal worker's own metrics are off: their exporter could not start", { error: String(err) });
      Runtime.install(options);
    }
  } catch {
    // Already installed in this process (a second runtime in tests): keep the first.
  }
}
