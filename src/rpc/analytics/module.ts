import { AnalyticsService, SdkVisitsService, file_sigil_analytics_v0_analytics_service } from "../../gen/sigil/analytics/v0/analytics_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerAnalytics } from "./handlers.js";

/** Analytics and visitor statistics of an environment, and the visits the SDK reports (public). */
export const analyticsModule: ApiModule = {
  services: [AnalyticsService, SdkVisitsService],
  files: [file_sigil_analytics_v0_analytics_service],
  register: (router, deps) => registerAnalytics(router, deps),
};
