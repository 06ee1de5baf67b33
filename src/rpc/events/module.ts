import { EventsService, SdkEventsService, file_sigil_events_v0_events_service } from "../../gen/sigil/events/v0/events_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerEvents } from "./handlers.js";

/** The event catalogue, an environment's events, and the SDK's client events (public). */
export const eventsModule: ApiModule = {
  services: [EventsService, SdkEventsService],
  files: [file_sigil_events_v0_events_service],
  register: (router, deps) => registerEvents(router, deps),
};
