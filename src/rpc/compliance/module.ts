import { ComplianceService, file_sigil_compliance_v0_compliance_service } from "../../gen/sigil/compliance/v0/compliance_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerCompliance } from "./handlers.js";

/** Sanctions screening settings of an environment. */
export const complianceModule: ApiModule = {
  services: [ComplianceService],
  files: [file_sigil_compliance_v0_compliance_service],
  register: (router, deps) => registerCompliance(router, deps),
};
