import * as repo from "../../db/repositories/compliance.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";

/** Compliance settings of an environment: whether sign-ins are screened against sanctions lists. */

export function getCompliance(deps: Deps, access: EnvironmentAccess) {
  return repo.findCompliance(deps.db, access.environmentId);
}

export async function setSanctionsEnabled(deps: Deps, access: EnvironmentAccess, enabled: boolean) {
  return audited(deps, access, async (t, record) => {
    const before = await repo.findCompliance(t, access.environmentId, true);
    const after = await repo.setSanctionsEnabled(t, access.environmentId, enabled);
    await record({
      action: enabled ? "compliance.sanctions.enabled" : "compliance.sanctions.disabled",
      resourceType: "compliance",
      resourceId: access.environmentId,
      before: { sanctionsEnabledAt: before.sanctionsEnabledAt },
      after: { sanctionsEnabledAt: after.sanctionsEnabledAt },
    });
    return after;
  });
}
