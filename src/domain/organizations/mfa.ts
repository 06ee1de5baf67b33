import * as mfa from "../../db/repositories/mfa-settings.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { OrganizationAccess } from "../tenancy/access.js";

/**
 * The MFA device types an organization can allow (the proto's `allowed` list says the same): the published
 * client's MFADeviceType. Sigil has no SMS second factor, so sms is not offered.
 */
export const MFA_DEVICE_TYPES = ["totp", "passkey", "email"] as const;

/** One entry per known device type; types never configured read as disabled. */
export async function getMfaSettings(deps: Deps, organizationId: string): Promise<mfa.MfaSettingRecord[]> {
  const stored = await mfa.listMfaSettings(deps.db, organizationId);
  return MFA_DEVICE_TYPES.map((type) => stored.find((s) => s.deviceType === type) ?? { id: null, deviceType: type, enabled: false, updatedAt: null });
}

/** Enables or disables a device type; a change that changes nothing writes nothing (and no audit row). */
export async function setMfaDeviceEnabled(deps: Deps, access: OrganizationAccess, deviceType: string, enabled: boolean) {
  return audited(deps, access, async (t, record) => {
    const before = await mfa.lockMfaSetting(t, access.organizationId, deviceType);
    if (before && before.enabled === enabled) return before;
    if (!before && !enabled) return { id: null, deviceType, enabled: false, updatedAt: null };
    const after = await mfa.upsertMfaSetting(t, access.organizationId, deviceType, enabled);
    await record({
      action: `mfa_setting.${enabled ? "enabled" : "disabled"}`,
      resourceType: "mfa_setting",
      resourceId: after.id!,
      before: { mfaDeviceType: deviceType, enabled: before?.enabled ?? false },
      after: { mfaDeviceType: deviceType, enabled },
      environmentId: null,
    });
    return after;
  });
}
