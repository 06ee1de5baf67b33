import { WebhooksService, file_sigil_webhooks_v0_webhooks_service } from "../../gen/sigil/webhooks/v0/webhooks_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerWebhooks } from "./handlers.js";

/** Webhook endpoints, their messages and deliveries. */
export const webhooksModule: ApiModule = {
  services: [WebhooksService],
  files: [file_sigil_webhooks_v0_webhooks_service],
  register: (router, deps) => registerWebhooks(router, deps),
};
