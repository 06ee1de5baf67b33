import { SdkViewsService, file_sigil_sdk_views_v0_sdk_views_service } from "../../gen/sigil/sdk_views/v0/sdk_views_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerSdkViews } from "./handlers.js";

/** SDK views: the sections an environment's sign-in screens show, in order. */
export const sdkViewsModule: ApiModule = {
  services: [SdkViewsService],
  files: [file_sigil_sdk_views_v0_sdk_views_service],
  register: (router, deps) => registerSdkViews(router, deps),
};
