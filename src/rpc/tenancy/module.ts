import { MembersService, file_sigil_organizations_v0_members_service } from "../../gen/sigil/organizations/v0/members_service_pb.js";
import { MfaSettingsService, file_sigil_organizations_v0_mfa_settings_service } from "../../gen/sigil/organizations/v0/mfa_settings_service_pb.js";
import {
  OrganizationsService,
  file_sigil_organizations_v0_organizations_service,
} from "../../gen/sigil/organizations/v0/organizations_service_pb.js";
import { EnvironmentsService, file_sigil_projects_v0_environments_service } from "../../gen/sigil/projects/v0/environments_service_pb.js";
import { ProjectsService, file_sigil_projects_v0_projects_service } from "../../gen/sigil/projects/v0/projects_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerMembers } from "./members.js";
import { registerMfaSettings } from "./mfa-settings.js";
import { registerOrganizations } from "./organizations.js";
import { registerProjects } from "./projects.js";

/** Organizations, their members and MFA settings, projects and environments. */
export const tenancyModule: ApiModule = {
  services: [OrganizationsService, MembersService, MfaSettingsService, ProjectsService, EnvironmentsService],
  files: [
    file_sigil_organizations_v0_organizations_service,
    file_sigil_organizations_v0_members_service,
    file_sigil_organizations_v0_mfa_settings_service,
    file_sigil_projects_v0_projects_service,
    file_sigil_projects_v0_environments_service,
  ],
  register(router, deps) {
    registerOrganizations(router, deps);
    registerMembers(router, deps);
    registerMfaSettings(router, deps);
    registerProjects(router, deps);
  },
};
