import type { ConnectRouter } from "@connectrpc/connect";
import { ComplianceService } from "../../gen/sigil/compliance/v0/compliance_service_pb.js";
import type { ComplianceRecord } from "../../db/repositories/compliance.js";
import * as compliance from "../../domain/compliance/service.js";
import type { Deps } from "../../domain/deps.js";
import { ts } from "../mappers.js";
import { environmentOf } from "../tenant-context.js";

function toCompliance(c: ComplianceRecord) {
  return {
    projectEnvironmentId: c.environmentId,
    sanctionsEnabled: c.sanctionsEnabledAt !== null,
    sanctionsEnabledAt: ts(c.sanctionsEnabledAt),
    updatedAt: ts(c.updatedAt),
  };
}

export function registerCompliance(router: ConnectRouter, deps: Deps) {
  router.service(ComplianceService, {
    async getCompliance(req, ctx) {
      const access = environmentOf(ctx);
      return { compliance: toCompliance(await compliance.getCompliance(deps, access)) };
    },
    async enableSanctions(req, ctx) {
      const access = environmentOf(ctx);
      return { compliance: toCompliance(await compliance.setSanctionsEnabled(deps, access, true)) };
    },
    async disableSanctions(req, ctx) {
      const access = environmentOf(ctx);
      return { compliance: toCompliance(await compliance.setSanctionsEnabled(deps, access, false)) };
    },
  });
}
