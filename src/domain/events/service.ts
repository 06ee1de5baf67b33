import { DomainError, badRequest, notFound } from "../../errors.js";
import { insertEvent } from "../../db/repositories/events.js";
import * as events from "../../db/repositories/events-read.js";
import { findEnvironment } from "../../db/repositories/tenancy.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { CLIENT_EVENT_PREFIX, EVENT_TYPES } from "./catalogue.js";

export function listEventTypes() {
  return EVENT_TYPES;
}

export interface EventFilters extends Omit<events.EventQuery, "from" | "before"> {
  /** ISO 8601 date or date-time: events at or after it. */
  startDate?: string;
  /** ISO 8601 date or date-time: events before it. */
  endDate?: string;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** A bare date is the start of that UTC day. */
function instantOf(field: string, value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const d = ISO_INSTANT.test(value) ? new Date(value.includes("T") ? value : `${value}T00:00:00Z`) : null;
  if (!d || Number.isNaN(d.getTime())) throw badRequest("invalid_date", `${field} must be an ISO 8601 date or date-time`, { field });
  return d;
}

export function listEvents(deps: Deps, access: EnvironmentAccess, filters: EventFilters) {
  const { startDate, endDate, ...rest } = filters;
  const from = instantOf("startDate", startDate);
  const before = instantOf("endDate", endDate);
  if (from && before && from >= before) throw badRequest("invalid_date_range", "startDate must be before endDate", { field: "startDate" });
  return events.listEvents(deps.db, access.environmentId, { ...rest, from, before });
}

/** `created` for user.created; client events (`client.*`) name no action. */
export function eventActionOf(eventName: string, source: string): string | null {
  const dot = eventName.indexOf(".");
  return source === "client" || dot < 0 ? null : eventName.slice(dot + 1);
}

export async function getEvent(deps: Deps, access: EnvironmentAccess, eventId: string) {
  const e = await events.findEvent(deps.db, access.environmentId, eventId);
  if (!e) throw notFound("event");
  return e;
}

/** Bounds of the SDK's publish-events operation. */
export const MAX_CLIENT_EVENTS = 50;
export const MAX_CLIENT_EVENT_DATA_BYTES = 4096;
export const CLIENT_EVENT_NAME = /^client\.[a-z][a-z0-9_.]{0,63}$/;
const MAX_AGE_MS = 30 * 24 * 3600 * 1000;
const MAX_AHEAD_MS = 24 * 3600 * 1000;

export interface ClientEventInput {
  name: string;
  data: Record<string, unknown>;
  timestamp: Date | null;
}

/**
 * Stores events the SDK publishes (public: the environment id in the path is all it names). Every event is
 * checked before any is stored, so a bad batch stores nothing. They are kept as `source = client` events,
 * listed with the others and never delivered to webhooks.
 */
export async function publishClientEvents(deps: Deps, environmentId: string, input: readonly ClientEventInput[], now = new Date()): Promise<number> {
  const env = await findEnvironment(deps.db, environmentId);
  if (!env) throw notFound("environment");
  if (input.length === 0) throw badRequest("events_required", "events must hold at least one event", { field: "events" });
  if (input.length > MAX_CLIENT_EVENTS)
    throw badRequest("too_many_events", `at most ${MAX_CLIENT_EVENTS} events per request`, { field: "events", limit: MAX_CLIENT_EVENTS });
  input.forEach((e, i) => {
    if (!e.name.startsWith(CLIENT_EVENT_PREFIX) || !CLIENT_EVENT_NAME.test(e.name))
      throw badRequest("invalid_event_name", `events[${i}].name must match ${CLIENT_EVENT_NAME.source}`, { field: `events[${i}].name` });
    const bytes = Buffer.byteLength(JSON.stringify(e.data ?? {}));
    if (bytes > MAX_CLIENT_EVENT_DATA_BYTES)
      throw new DomainError("too_large", "event_data_too_large", `events[${i}].data is ${bytes} bytes; at most ${MAX_CLIENT_EVENT_DATA_BYTES} are accepted`, {
        field: `events[${i}].data`,
        limit: MAX_CLIENT_EVENT_DATA_BYTES,
      });
    if (e.timestamp) {
      const d = e.timestamp.getTime() - now.getTime();
      if (Number.isNaN(d) || d > MAX_AHEAD_MS || -d > MAX_AGE_MS)
        throw badRequest("invalid_event_timestamp", `events[${i}].timestamp must be within the last 30 days (and not more than a day ahead)`, {
          field: `events[${i}].timestamp`,
        });
    }
  });
  await deps.db.tx(async (t) => {
    const stamps: { id: string; occurredAt: Date | null }[] = [];
    for (const e of input) {
      const id = await insertEvent(t, {
        environmentId,
        organizationId: env.organizationId,
        eventName: e.name,
        source: "client",
        userId: null,
        resourceType: null,
        resourceId: null,
        data: e.data ?? {},
        auditId: null,
      });
      stamps.push({ id, occurredAt: e.timestamp });
    }
    await events.markClientEvents(t, environmentId, stamps);
  });
  return input.length;
}
