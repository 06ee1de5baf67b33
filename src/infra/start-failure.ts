/**
 * A part the service needs could not be started or reached while the service starts: the embedded Postgres
 * or Temporal dev server did not come up, or DATABASE_URL / REDIS_URL / TEMPORAL_ADDRESS did not answer.
 * Its message is the one paragraph `npm start` prints instead of a stack trace: what failed, why (the
 * server's own words when it said something), and what the person starting it can do about it.
 */
export class StartFailure extends Error {
  constructor(what: string, why: string, remedy: string, options?: { cause?: unknown }) {
    super(`${what}: ${why}. ${remedy}`, options);
    this.name = "StartFailure";
  }
}

/** Words of a server's output that say why it stopped, rather than what it was doing before. */
const FAILURE_WORDS = /\b(FATAL|PANIC|ERROR|panic|fatal|error|failed|denied|could not|cannot)\b/;

/**
 * The one line of a server's recent output that says why it did not start: its last line with a failure
 * word (postgres: "FATAL: ...", Go: "panic: ..."), else its last line; undefined for no output.
 */
export function decisiveLine(output: string): string | undefined {
  const lines = output
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const line = [...lines].reverse().find((l) => FAILURE_WORDS.test(l)) ?? lines.at(-1);
  return line?.replace(LOG_PREFIX, "").replace(/\s+/g, " ").replace(/[.\s]+$/, "");
}

/** Postgres's log line prefix ("2026-01-02 03:04:05.678 GMT [123] "): when and which process, not why. */
const LOG_PREFIX = /^\d{4}-\d\d-\d\d [\d:.]+ \S+ \[\d+\]\s*/;

/** host:port of a server URL, without its credentials or database (a URL may carry a password). */
export function endpointOf(url: string, defaultPort: number): string {
  try {
    const u = new URL(url.includes("://") ? url : `tcp://${url}`);
    return `${u.hostname}:${u.port || defaultPort}`;
  } catch {
    return "(unparsable URL)";
  }
}

/**
 * The reason of a connection-level error, e.g. "connect ECONNREFUSED 127.0.0.1:5432". A host name with
 * several addresses fails as an AggregateError with no message of its own: its first error speaks for it.
 */
export function reasonOf(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown; errors?: unknown } | undefined;
  const message = err instanceof Error ? err.message : String(err);
  if (!message && Array.isArray(e?.errors) && e.errors.length) return reasonOf(e.errors[0]);
  const line = message.split("\n")[0]!.replace(/[.\s]+$/, "");
  return line || (typeof e?.code === "string" ? e.code : "no reason given");
}

/** What `npm start` prints for a start that failed: the paragraph of a StartFailure, else message and stack (a bug). */
export function describeStartFailure(err: unknown): string {
  if (err instanceof StartFailure) return `sigil: could not start. ${err.message}`;
  const stack = err instanceof Error && err.stack ? `\n${err.stack}` : "";
  return `sigil: could not start: ${reasonOf(err)}${stack}`;
}

/**
 * A server named by a setting (DATABASE_URL, REDIS_URL, TEMPORAL_ADDRESS) that could not be reached or let
 * us in at the start. The endpoint is shown without the URL's credentials.
 */
export function unreachable(setting: string, url: string, defaultPort: number, remedy: string, err: unknown): StartFailure {
  return new StartFailure(`the server at ${setting} (${endpointOf(url, defaultPort)}) did not answer`, reasonOf(err), remedy, { cause: err });
}
