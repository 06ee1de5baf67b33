import { badRequest } from "../../errors.js";
import type { DayRange } from "../../db/repositories/analytics.js";

const DAY_MS = 86_400_000;
/** Longest range a query may span, in days (both ends included). */
export const MAX_RANGE_DAYS = 366;
/** Days covered when startDate is not given. */
export const DEFAULT_RANGE_DAYS = 30;

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** `YYYY-MM-DD` or an ISO date-time -> the UTC midnight of its (UTC) day, in ms; 400 when not a real date. */
function dayOf(value: string, field: string): number {
  let ms: number;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    ms = Date.parse(`${value}T00:00:00Z`);
    // Date.parse accepts 2024-02-30 on some engines by rolling over; a real date formats back to itself.
    if (Number.isNaN(ms) || isoDay(ms) !== value) throw badRequest("invalid_date", `${field} is not a valid date`, { field });
    return ms;
  }
  ms = Date.parse(value);
  if (Number.isNaN(ms)) throw badRequest("invalid_date", `${field} is not a valid ISO 8601 date`, { field });
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** The query parameters the range's ends came from, to name them in errors. */
export interface RangeFields {
  start: string;
  end: string;
}

/**
 * The whole UTC days an analytics query covers: endDate defaults to today, startDate to 29 days before
 * endDate (30 days). At most MAX_RANGE_DAYS days, and startDate not after endDate (400 invalid_date_range).
 */
export function dayRange(
  startDate: string | undefined,
  endDate: string | undefined,
  now: Date = new Date(),
  fields: RangeFields = { start: "startDate", end: "endDate" },
): DayRange {
  const end = endDate ? dayOf(endDate, fields.end) : Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  const start = startDate ? dayOf(startDate, fields.start) : end - (DEFAULT_RANGE_DAYS - 1) * DAY_MS;
  if (start > end) throw badRequest("invalid_date_range", `${fields.start} must not be after ${fields.end}`, { field: fields.start });
  const days = (end - start) / DAY_MS + 1;
  if (days > MAX_RANGE_DAYS)
    throw badRequest("invalid_date_range", `the range may span at most ${MAX_RANGE_DAYS} days (got ${days})`, { field: fields.start, maxDays: MAX_RANGE_DAYS });
  return { startDate: isoDay(start), endDate: isoDay(end), from: new Date(start), to: new Date(end + DAY_MS) };
}
