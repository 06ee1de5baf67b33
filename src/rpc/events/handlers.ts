import type { ConnectRouter } from "@connectrpc/connect";
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { EventsService, SdkEventsService } from "../../gen/sigil/events/v0/events_service_pb.js";
import type { EventSchema } from "../../gen/sigil/events/v0/events_pb.js";
import type { StoredEvent } from "../../db/repositories/events-read.js";
import type { Deps } from "../../domain/deps.js";
import * as events from "../../domain/events/service.js";
import { checkPublishLimits } from "../../domain/events/publish-limits.js";
import { clientAddress } from "../context.js";
import { nextCursor, pageFromCursor } from "../cursor.js";
import { str, ts } from "../mappers.js";
import { environmentOf, publicEnvironmentOf } from "../tenant-context.js";

function toEvent(e: StoredEvent, environmentName: string): MessageInitShape<typeof EventSchema> {
  return {
    eventId: e.id,
    environmentId: e.environmentId,
    environmentName,
    eventName: e.eventName,
    eventAction: str(events.eventActionOf(e.eventName, e.source)),
    source: e.source,
    resourceType: str(e.resourceType),
    resourceId: str(e.resourceId),
    // jsonb round-trips to JSON values; a Struct takes exactly those.
    data: (e.data ?? {}) as JsonObject,
    timestamp: ts(e.occurredAt ?? e.createdAt),
    createdAt: ts(e.createdAt),
    occurredAt: ts(e.occurredAt),
    context: { userId: str(e.userId) },
  };
}

export function registerEvents(router: ConnectRouter, deps: Deps) {
  router.service(EventsService, {
    // The catalogue is global: any valid token (with events.read) may read it.
    async listEventTypes() {
      const types = events.listEventTypes();
      return { eventTypes: types.map((t) => ({ name: t.name, description: t.description })), count: types.length };
    },
    async listEvents(req, ctx) {
      const access = environmentOf(ctx);
      const page = pageFromCursor(req);
      const { items, count } = await events.listEvents(deps, access, {
        ...page,
        eventName: req.eventName || undefined,
        userId: req.userId || undefined,
        resourceType: req.resourceType || undefined,
        // The validation interceptor allows only these two.
        source: (req.source || undefined) as "service" | "client" | undefined,
        startDate: req.startDate || undefined,
        endDate: req.endDate || undefined,
      });
      return { data: items.map((e) => toEvent(e, access.environmentName)), cursor: nextCursor(page, items.length, count), count };
    },
    async getEvent(req, ctx) {
      const access = environmentOf(ctx);
      return { event: toEvent(await events.getEvent(deps, access, req.eventId), access.environmentName) };
    },
  });
  router.service(SdkEventsService, {
    async publishEvents(req, ctx) {
      const { environmentId } = publicEnvironmentOf(ctx);
      await checkPublishLimits(deps.store, deps.config.sdkEvents, environmentId, clientAddress(ctx));
      const accepted = await events.publishClientEvents(
        deps,
        environmentId,
        req.events.map((e) => ({
          name: e.name,
          data: (e.data ?? {}) as Record<string, unknown>,
          timestamp: e.timestamp ? timestampDate(e.timestamp) : null,
        })),
      );
      return { accepted };
    },
  });
}
