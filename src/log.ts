import { trace } from "@opentelemetry/api";

/**
 * One line per event on stdout: a JSON object (`json`, for log collectors) or a readable line (`pretty`, for
 * a terminal). Callers pass structured fields; secrets never go in them. While the process traces
 * (src/infra/tracing.ts), a line written inside a span carries its traceId and spanId, so that a log line
 * leads to its trace.
 */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
export type LogFormat = "json" | "pretty";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (l) => process.stdout.write(l + "\n"),
  format: LogFormat = "json",
): Logger {
  const render = format === "pretty" ? prettyLine : jsonLine;
  const at = (l: Exclude<LogLevel, "silent">) => (msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[l] < ORDER[level]) return;
    // Without a registered tracer provider this is the API's no-op: no span, nothing added.
    const span = trace.getActiveSpan()?.spanContext();
    const traced = span ? { traceId: span.traceId, spanId: span.spanId } : undefined;
    write(render(new Date(), l, msg, traced ? { ...fields, ...traced } : fields));
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

function jsonLine(time: Date, level: string, msg: string, fields: Record<string, unknown> | undefined): string {
  return JSON.stringify({ time: time.toISOString(), level, msg, ...fields });
}

/** `12:01:02.345 INFO  http POST /api/v0/... status=201 ms=12 requestId=...`: one line, values JSON-quoted when they need it. */
function prettyLine(time: Date, level: string, msg: string, fields: Record<string, unknown> | undefined): string {
  const parts = [time.toISOString().slice(11, 23), level.toUpperCase().padEnd(5), msg];
  for (const [key, value] of Object.entries(fields ?? {})) {
    if (value === undefined) continue;
    parts.push(`${key}=${prettyValue(value)}`);
  }
  return parts.join(" ");
}

function prettyValue(value: unknown): string {
  if (typeof value === "string") return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (value instanceof Error) return JSON.stringify(value.message);
  return JSON.stringify(value) ?? String(value);
}
