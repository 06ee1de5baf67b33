import { DomainError, unavailable, type Dependency } from "../errors.js";

/**
 * The one place that decides whether an error thrown while serving a request means "a dependency is down"
 * (answered 503 + Retry-After / UNAVAILABLE, so the client retries) rather than a bug (500). Only connection-level
 * failures count: a query or workflow that failed on its own merits stays an internal error.
 * Duck-typed on the drivers' error shapes so that neither pg nor Temporal is imported here.
 */

/** Socket errors of a connection attempt or of a live connection (pg connects with plain sockets). */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);

/**
 * Postgres SQLSTATEs of a server that is going away or not yet back: admin_shutdown, crash_shutdown,
 * cannot_connect_now (starting up, in recovery), too_many_connections, and the connection_exception class.
 */
const PG_STATES = new Set(["57P01", "57P02", "57P03", "53300", "08000", "08001", "08003", "08004", "08006"]);

/** node-postgres / pg-pool messages of a lost or impossible connection (they carry no code). */
const PG_MESSAGES = [
  "Connection terminated",
  "timeout exceeded when trying to connect",
  "Client has encountered a connection error and is not queryable",
  "Client was closed and is not queryable",
];

/** gRPC status codes of an unreachable Temporal frontend: UNAVAILABLE (14) and DEADLINE_EXCEEDED (4). */
const GRPC_UNREACHABLE = new Set([14, 4]);

/** node-redis errors of a closed or disconnected client. */
const REDIS_NAMES = new Set(["ClientClosedError", "ClientOfflineError", "SocketClosedUnexpectedlyError", "ConnectionTimeoutError"]);

function dependencyOf(err: unknown, depth = 0): Dependency | undefined {
  if (!err || typeof err !== "object" || depth > 4) return undefined;
  const e = err as { name?: unknown; code?: unknown; message?: unknown; cause?: unknown; details?: unknown };
  const name = typeof e.name === "string" ? e.name : "";
  if (REDIS_NAMES.has(name)) return "store";
  // Temporal's ServiceError wraps the gRPC error (numeric code) as its cause.
  if (typeof e.code === "number" && GRPC_UNREACHABLE.has(e.code) && ("details" in e || "metadata" in e)) return "workflow_engine";
  if (name === "ServiceError") {
    const inner = dependencyOf(e.cause, depth + 1);
    return inner === "workflow_engine" ? inner : undefined;
  }
  if (typeof e.code === "string" && (SOCKET_CODES.has(e.code) || PG_STATES.has(e.code))) return "database";
  const message = typeof e.message === "string" ? e.message : "";
  if (PG_MESSAGES.some((m) => message.startsWith(m))) return "database";
  return dependencyOf(e.cause, depth + 1);
}

/** The 503 error for a connection-level failure of a dependency, or undefined for anything else. */
export function asUnavailable(err: unknown): DomainError | undefined {
  if (err instanceof DomainError) return err.kind === "unavailable" ? err : undefined;
  const dependency = dependencyOf(err);
  return dependency ? unavailable(dependency) : undefined;
}
