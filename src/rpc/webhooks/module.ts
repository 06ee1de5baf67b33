import type { ConnectRouter } from "@connectrpc/connect";
import { WebhooksService, file_sigil_webhooks_v0_webhooks_service } from "../../gen/sigil/webhooks/v0/webhooks_service_pb.js";
import { EventsService, SdkEventsService, file_sigil_events_v0_events_service } from "../../gen/sigil/events/v0/events_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import type { ApiModule } from "../module.js";
import { registerEvents } from "./events.js";
import { registerWebhooks } from "./handlers.js";

/** Webhook endpoints, their messages and deliveries; the event catalogue, events, and the SDK's client events. */
export const webhooksModule: ApiModule = {
  services: [WebhooksService, EventsService, SdkEventsService],
  files: [file_sigil_webhooks_v0_webhooks_service, file_sigil_events_v0_events_service],
  register(router: ConnectRouter, deps: Deps) {
    registerWebhooks(router, deps);
    registerEvents(router, deps);
  },
};
