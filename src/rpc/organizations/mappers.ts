import type { OrganizationRecord } from "../../db/repositories/organizations.js";
import type { MfaSettingRecord } from "../../db/repositories/mfa-settings.js";
import { str, ts } from "../mappers.js";

export function toOrganization(o: OrganizationRecord) {
  return {
    id: o.id,
    name: o.name,
    description: str(o.description),
    websiteUrl: str(o.websiteUrl),
    address: o.address
      ? {
          line1: str(o.address.line1),
          line2: str(o.address.line2),
          city: str(o.address.city),
          region: str(o.address.region),
          postalCode: str(o.address.postalCode),
          country: o.address.country,
        }
      : undefined,
    role: str(o.role),
    createdAt: ts(o.createdAt),
    updatedAt: ts(o.updatedAt),
  };
}

export function toMfaSetting(s: MfaSettingRecord) {
  return { mfaDeviceType: s.deviceType, enabled: s.enabled, updatedAt: ts(s.updatedAt), enabledAt: s.enabled ? ts(s.updatedAt) : undefined };
}
