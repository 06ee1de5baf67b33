import { DomainError, badRequest, unprocessable } from "../../errors.js";

/** Seconds a client is told to wait when the exchange failed and said nothing of its own. */
export const EXCHANGE_RETRY_AFTER_SECONDS = 5;

/** 503 with Retry-After: the exchange failed, timed out, was busy or answered more than Sigil reads. */
export const exchangeUnavailable = (reason: string, retryAfterSeconds = EXCHANGE_RETRY_AFTER_SECONDS) =>
  new DomainError("unavailable", "exchange_unavailable", `the exchange did not answer usably (${reason}), retry later`, { retryAfterSeconds });

/** 422: the environment has no usable connection of this exchange (none, disabled, no URL or credentials, URL refused). */
export const exchangeNotConfigured = (message: string, payload: Record<string, unknown> = {}) => unprocessable("not_configured", message, payload);

/** 422: the caller has not linked their account at this exchange. */
export const notLinked = (exchange: string) =>
  unprocessable("exchange_not_linked", `link your ${exchange} exchange account first (StartExchangeLink)`, { exchangeKey: exchange });

/** 422: the exchange no longer accepts the caller's token. */
export const linkExpired = (exchange: string) =>
  unprocessable("exchange_link_expired", `the exchange no longer accepts your link: link your ${exchange} exchange account again`, { exchangeKey: exchange });

/** 422: the exchange refused the request for a reason of its own. */
export const exchangeRejected = (status: number, exchangeCode: string) =>
  unprocessable("exchange_rejected", `the exchange refused the request (${exchangeCode || `HTTP ${status}`})`, { exchangeCode, exchangeStatus: status });

export const invalidState = () => badRequest("invalid_state", "the state is unknown, spent, expired or of another environment: start the link again");

export const linkFailed = (error: string) => badRequest("exchange_link_failed", "the exchange did not grant the link: start it again", { error });

export const mfaRequired = () => new DomainError("forbidden", "exchange_mfa_required", "the exchange asks for its two-factor code: send it as mfaCode");
