import { MFADeviceType, MfaSettingsApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** MfaSettingsApi: one scenario per operation, keyed `MfaSettingsApi.<operation>`, run in this order. */
export const mfaSettingsApi: Scenarios = {
  "MfaSettingsApi.getOrganizationMfaSettings": ({ memberApi, tenant }) =>
    memberApi(MfaSettingsApi).getOrganizationMfaSettings({ organizationId: tenant.organizationId }),
  "MfaSettingsApi.enableMfaDeviceForOrganization": ({ memberApi, tenant }) =>
    memberApi(MfaSettingsApi).enableMfaDeviceForOrganization({ organizationId: tenant.organizationId, mfaDeviceType: MFADeviceType.Totp }),
  "MfaSettingsApi.disableMfaDeviceForOrganization": ({ memberApi, tenant }) =>
    memberApi(MfaSettingsApi).disableMfaDeviceForOrganization({ organizationId: tenant.organizationId, mfaDeviceType: MFADeviceType.Totp }),
};
