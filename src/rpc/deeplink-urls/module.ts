import { DeeplinkUrlsService, file_sigil_deeplink_urls_v0_deeplink_urls_service } from "../../gen/sigil/deeplink_urls/v0/deeplink_urls_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerDeeplinkUrls } from "./handlers.js";

/** Deeplink URLs: where an environment's apps receive sign-in results. */
export const deeplinkUrlsModule: ApiModule = {
  services: [DeeplinkUrlsService],
  files: [file_sigil_deeplink_urls_v0_deeplink_urls_service],
  register: (router, deps) => registerDeeplinkUrls(router, deps),
};
