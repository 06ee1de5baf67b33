import { organizationsApi } from "./scenarios/organizations.js";
import { projectsApi } from "./scenarios/projects.js";
import { membersApi } from "./scenarios/members.js";
import { invitesApi } from "./scenarios/invites.js";
import { userApiTokensApi } from "./scenarios/user-api-tokens.js";
import { tokensApi } from "./scenarios/tokens.js";
import { environmentsApi } from "./scenarios/environments.js";
import { runCompat } from "./runner.js";

runCompat("tenancy", { ...organizationsApi, ...projectsApi, ...membersApi, ...invitesApi, ...userApiTokensApi, ...tokensApi, ...environmentsApi });
