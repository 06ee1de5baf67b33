import type { ErrorKind } from "../errors.js";

/**
 * How a DomainError crosses Temporal and back: an activity refuses with a non-retryable ApplicationFailure
 * carrying the error's kind, code and payload as its first detail (type = code, what an operator reads in
 * the UI); the workflow, the client that ran an Update, and a room that stores the outcome all read it back
 * with codedFailureOf / codedFailure, so the three agree on every field and on the one default kind.
 *
 * Workflow code imports this module: it imports nothing at run time (no Node API, no SDK), and it tells
 * Temporal's failures apart by their names, which the SDK gives every copy of its classes alike.
 */

/** A DomainError as plain data: what crosses the boundary and what a room stores. */
export interface CodedFailure {
  kind: ErrorKind;
  code: string;
  message: string;
  payload?: Record<string, unknown>;
}

/**
 * The kind of a failure that names none. Every encoder here names one, so a kindless failure is none of
 * ours (an older worker, a hand-made failure): answered as a server fault rather than blamed on the caller.
 */
export const DEFAULT_FAILURE_KIND: ErrorKind = "internal";

/** What a failure that carries no domain error reads as: nothing of its message (it may be internal detail). */
const UNEXPLAINED: CodedFailure = { kind: "internal", code: "internal", message: "the operation failed" };

/** The options of `ApplicationFailure.create` for a DomainError (bad input or state never improves by retrying). */
export function failureOptions(e: CodedFailure) {
  return {
    message: e.message,
    type: e.code,
    nonRetryable: true,
    details: [{ kind: e.kind, code: e.code, ...(e.payload ? { payload: e.payload } : {}) }],
  };
}

/** A stored failure (a room's error column) as a CodedFailure, the kind defaulted as everywhere else. */
export function codedFailure(stored: { kind?: string; code: string; message: string; payload?: unknown }): CodedFailure {
  return {
    kind: (stored.kind as ErrorKind | undefined) ?? DEFAULT_FAILURE_KIND,
    code: stored.code,
    message: stored.message,
    ...(isRecord(stored.payload) ? { payload: stored.payload } : {}),
  };
}

/** Failures that only wrap the one that says why: an Update's, an activity's, a child workflow's, a workflow's. */
const WRAPPERS = new Set(["WorkflowUpdateFailedError", "WorkflowFailedError", "ActivityFailure", "ChildWorkflowFailure"]);

/**
 * The DomainError an error carries, through the failures that wrap it; UNEXPLAINED for an
 * ApplicationFailure that carries none (an activity's unexpected error after its retries); null when there
 * is no ApplicationFailure at all (a timeout, a cancellation, a termination, not a Temporal failure).
 */
export function codedFailureOf(err: unknown): CodedFailure | null {
  let cause: unknown = err;
  for (let depth = 0; isRecord(cause) && WRAPPERS.has(String(cause.name)) && depth < 8; depth++) cause = cause.cause;
  if (!isRecord(cause) || cause.name !== "ApplicationFailure") return null;
  const detail = Array.isArray(cause.details) ? cause.details[0] : undefined;
  if (!isRecord(detail) || typeof detail.code !== "string") return UNEXPLAINED;
  return codedFailure({ kind: detail.kind as string | undefined, code: detail.code, message: String(cause.message), payload: detail.payload });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}
