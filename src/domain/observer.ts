/**
 * What domain code reports for the operators' counters (/metrics). The domain only says what happened; the
 * process's metrics adapter (src/observability/metrics/) counts it, so no domain module knows the metrics
 * library. Nothing reported names a tenant, a user, an address or a secret: every argument is one of a
 * small fixed set of words, so that a counter's label values stay few.
 */
export interface DomainObserver {
  /** A sign-in finished: `outcome` is "success", or the code of the error it answered (DomainError codes, or "internal"). */
  signIn(method: SignInMethod, outcome: string): void;
  /** A sign-in opened a session (`credential` is the kind of credential proven). */
  sessionIssued(credential: string, secondFactorPending: boolean): void;
  /** A webhook delivery attempt was sent (or could not be) and recorded. */
  webhookAttempt(outcome: WebhookAttemptOutcome): void;
}

/** The ways in of a sign-in: one per domain entry point that ends in the sign-in pipeline. */
export type SignInMethod = "email" | "sms" | "wallet" | "oauth" | "passkey" | "external_jwt" | "social" | "chat";

/** delivered (2xx), retry (another attempt is due), failed (the last one failed), stopped (endpoint gone or disabled), error (the attempt could not run). */
export type WebhookAttemptOutcome = "delivered" | "retry" | "failed" | "stopped" | "error";

/** Reports nothing: a process with metrics off, and code that runs without a process (scripts). */
export const silentObserver: DomainObserver = {
  signIn: () => {},
  sessionIssued: () => {},
  webhookAttempt: () => {},
};
