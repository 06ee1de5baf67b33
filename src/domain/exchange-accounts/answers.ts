import { notFound } from "../../errors.js";
import { exchangeNotConfigured, exchangeRejected, exchangeUnavailable, linkExpired, mfaRequired } from "./errors.js";
import type { ExchangeAnswer } from "./port.js";

/** The exchange's own error code in a refusal ({ code } or OAuth's { error }). */
export const exchangeCodeOf = (body: unknown): string => {
  const b = (body ?? {}) as { code?: unknown; error?: unknown };
  return typeof b.code === "string" ? b.code.slice(0, 64) : typeof b.error === "string" ? b.error.slice(0, 64) : "";
};

/**
 * A 2xx answer's JSON object, or the refusal as Sigil's error: 401 on a user's call means the user's token
 * is no longer accepted (link again), on the service's own call that the exchange refuses the connection's
 * credentials (not_configured); 403 two_factor_required the exchange's 2FA, 404 not found, any other 4xx
 * the exchange's own refusal. A 2xx that is not a JSON object is not an answer.
 */
export function okBody(answer: ExchangeAnswer, exchange: string, what: string, onBehalfOfUser: boolean): Record<string, unknown> {
  const { status, body } = answer;
  if (status >= 200 && status < 300) {
    if (!body || typeof body !== "object" || Array.isArray(body)) throw exchangeUnavailable("the answer is not a JSON object");
    return body as Record<string, unknown>;
  }
  const code = exchangeCodeOf(body);
  if (status === 401 && !onBehalfOfUser)
    throw exchangeNotConfigured(`the ${exchange} exchange refuses the connection's credentials (${code || "HTTP 401"})`, { exchangeKey: exchange });
  if (status === 401) throw linkExpired(exchange);
  if (status === 403 && code === "two_factor_required") throw mfaRequired();
  if (status === 404) throw notFound(what);
  throw exchangeRejected(status, code);
}

/** A list the exchange answered under `key`; anything else is not an answer (never read as empty). */
export function listOf(body: Record<string, unknown>, key: string): Record<string, unknown>[] {
  const list = body[key];
  if (!Array.isArray(list) || list.some((x) => !x || typeof x !== "object")) throw exchangeUnavailable(`the answer has no ${key} list`);
  return list as Record<string, unknown>[];
}

export const str = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");

/** A decimal amount (string or number) as a number; undefined when the exchange sent none or no number. */
export function amount(v: unknown): number | undefined {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** An RFC 3339 time as a Date; undefined when absent or unreadable. */
export function time(v: unknown): Date | undefined {
  if (typeof v !== "string") return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d;
}
