import { MfaSettingsService, file_sigil_organizations_v0_mfa_settings_service } from "../../gen/sigil/organizations/v0/mfa_settings_service_pb.js";
import {
  OrganizationsService,
  file_sigil_organizations_v0_organizations_service,
} from "../../gen/sigil/organizations/v0/organizations_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerOrganizations } from "./handlers.js";
import { registerMfaSettings } from "./mfa-settings.js";

/** Organizations and the MFA devices their members may use. */
export const organizationsModule: ApiModule = {
  services: [OrganizationsService, MfaSettingsService],
  files: [file_sigil_organizations_v0_organizations_service, file_sigil_organizations_v0_mfa_settings_service],
  register(router, deps) {
    registerOrganizations(router, deps);
    registerMfaSettings(router, deps);
  },
};
