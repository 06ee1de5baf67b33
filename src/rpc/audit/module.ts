import { AuditLogService, file_sigil_audit_v0_audit_service } from "../../gen/sigil/audit/v0/audit_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerAuditLog } from "./handlers.js";

/** The audit log listing of environments and organizations. */
export const auditModule: ApiModule = {
  services: [AuditLogService],
  files: [file_sigil_audit_v0_audit_service],
  register: (router, deps) => registerAuditLog(router, deps),
};
