import { AnalyticsService, file_sigil_analytics_v0_analytics_service } from "../../gen/sigil/analytics/v0/analytics_service_pb.js";
import { AuditLogService, file_sigil_audit_v0_audit_service } from "../../gen/sigil/audit/v0/audit_service_pb.js";
import { ExportsService, file_sigil_exports_v0_exports_service } from "../../gen/sigil/exports/v0/exports_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerAnalytics } from "./analytics-handlers.js";
import { registerAuditLog } from "./audit-handlers.js";
import { registerExports } from "./handlers.js";

/** Exports (Temporal workflow export/<id>), analytics and visitor statistics, and the audit log listing. */
export const exportsModule: ApiModule = {
  services: [ExportsService, AnalyticsService, AuditLogService],
  files: [file_sigil_exports_v0_exports_service, file_sigil_analytics_v0_analytics_service, file_sigil_audit_v0_audit_service],
  register: (router, deps) => {
    registerExports(router, deps);
    registerAnalytics(router, deps);
    registerAuditLog(router, deps);
  },
};
