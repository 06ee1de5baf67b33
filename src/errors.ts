import { Code, ConnectError } from "@connectrpc/connect";

/**
 * The one error type of the domain. `kind` says which class of failure it is (and so the Connect code and
 * the HTTP status); `code` is a stable snake_case identifier clients can branch on; `payload` carries
 * structured detail such as the violated fields.
 */
export type ErrorKind =
  | "bad_request"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "unprocessable"
  | "too_large"
  | "rate_limited"
  | "unavailable"
  | "internal";

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly payload?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const badRequest = (code: string, message: string, payload?: Record<string, unknown>) =>
  new DomainError("bad_request", code, message, payload);
export const notFound = (what: string) => new DomainError("not_found", "not_found", `${what} not found`);
export const unprocessable = (code: string, message: string, payload?: Record<string, unknown>) =>
  new DomainError("unprocessable", code, message, payload);
export const conflict = (code: string, message: string) => new DomainError("conflict", code, message);

/** A bound on how often something may happen (a fixed window in the store). */
export interface RateBound {
  /** What is counted: "token", "address", "identifier", "environment", "factor". */
  scope: string;
  limit: number;
  windowSeconds: number;
  /** The environment variable that sets the bound; absent for a bound no setting changes. */
  setting?: string;
}

const windowName = (s: number) => (s % 86_400 === 0 ? `${s / 86_400}d` : s % 3600 === 0 ? `${s / 3600}h` : s % 60 === 0 ? `${s / 60}m` : `${s}s`);
const perWindow = (s: number) => ({ 60: "a minute", 3600: "an hour", 86_400: "a day" })[s] ?? `per ${s} s`;

/**
 * 429: a caller went past a bound. The body says which bound and how to change it, so that a developer who
 * hits it (a test run, a README walk-through) knows what to set: the payload is {scope, limit, window,
 * setting?, retryAfterSeconds} and the message says the same in words. The error interceptor turns
 * retryAfterSeconds into Retry-After (gRPC: RESOURCE_EXHAUSTED, the payload in the trailers).
 */
export function rateLimited(code: string, what: string, bound: RateBound, retryAfterMs: number, then?: string): DomainError {
  const retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const setting = bound.setting ? ` (${bound.setting})` : "";
  return new DomainError("rate_limited", code, `${what}: at most ${bound.limit} ${perWindow(bound.windowSeconds)}${then ? `, ${then}` : ""}${setting}; retry in ${retryAfterSeconds} s`, {
    scope: bound.scope,
    limit: bound.limit,
    window: windowName(bound.windowSeconds),
    ...(bound.setting ? { setting: bound.setting } : {}),
    retryAfterSeconds,
  });
}

/** A dependency the request needs; each has its own error code (`database_unavailable`, ...). */
export type Dependency = "database" | "workflow_engine" | "store";

/** Seconds a client is told to wait (Retry-After) when a dependency is down: about one supervisor restart. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * A dependency is down or unreachable (connection refused or reset, server restarting, no answer within its
 * deadline): the request did nothing durable and may be retried. Answered 503 with Retry-After (HTTP) or
 * UNAVAILABLE (gRPC/Connect) by the transport.
 */
export const unavailable = (dependency: Dependency) =>
  new DomainError("unavailable", `${dependency}_unavailable`, `${dependency.replace("_", " ")} unavailable, retry later`, {
    dependency,
  });

/** Connect code per kind. 422 has no Connect code of its own: FailedPrecondition carries it. */
export const kindToCode: Record<ErrorKind, Code> = {
  bad_request: Code.InvalidArgument,
  unauthenticated: Code.Unauthenticated,
  forbidden: Code.PermissionDenied,
  not_found: Code.NotFound,
  conflict: Code.AlreadyExists,
  unprocessable: Code.FailedPrecondition,
  too_large: Code.ResourceExhausted,
  rate_limited: Code.ResourceExhausted,
  unavailable: Code.Unavailable,
  internal: Code.Internal,
};

/** HTTP status per kind, used by the REST gateway. */
export const kindToHttpStatus: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  too_large: 413,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

/**
 * 500 answered, when declarations are enforced (the test run), for an error the RPC does not declare
 * (src/rpc/undeclared-errors.ts). Unlike other 500s its body names the code, status and RPC: it exists to
 * say what to declare.
 */
export const UNDECLARED_ERROR = "undeclared_error";

/** Response metadata keys that carry the domain error across the RPC boundary to the gateway. */
export const ERROR_KIND_HEADER = "sigil-error-kind";
export const ERROR_CODE_HEADER = "sigil-error-code";
export const ERROR_PAYLOAD_HEADER = "sigil-error-payload";

/** Converts a DomainError into a ConnectError whose metadata lets the gateway rebuild the spec's body. */
export function toConnectError(err: DomainError, extraHeaders?: HeadersInit): ConnectError {
  const metadata = new Headers(extraHeaders);
  metadata.set(ERROR_KIND_HEADER, err.kind);
  metadata.set(ERROR_CODE_HEADER, err.code);
  if (err.payload) metadata.set(ERROR_PAYLOAD_HEADER, encodeURIComponent(JSON.stringify(err.payload)));
  return new ConnectError(err.message, kindToCode[err.kind], metadata);
}
