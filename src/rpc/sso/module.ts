import { SsoProvidersService, file_sigil_sso_v0_sso_providers_service } from "../../gen/sigil/sso/v0/sso_providers_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerSsoProviders } from "./handlers.js";

/** SSO: an organization's single sign-on provider (OIDC or SAML). */
export const ssoModule: ApiModule = {
  services: [SsoProvidersService],
  files: [file_sigil_sso_v0_sso_providers_service],
  register: (router, deps) => registerSsoProviders(router, deps),
};
