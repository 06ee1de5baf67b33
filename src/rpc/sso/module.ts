import { SsoProvidersService, file_sigil_sso_v0_sso_providers_service } from "../../gen/sigil/sso/v0/sso_providers_service_pb.js";
import { SdkSsoService, file_sigil_sso_v0_sdk_sso_service } from "../../gen/sigil/sso/v0/sdk_sso_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerSsoProviders } from "./handlers.js";
import { registerSdkSso } from "./sdk-handlers.js";

/** SSO: an organization's single sign-on provider (OIDC or SAML), and the SDK's question whether it serves an address. */
export const ssoModule: ApiModule = {
  services: [SsoProvidersService, SdkSsoService],
  files: [file_sigil_sso_v0_sso_providers_service, file_sigil_sso_v0_sdk_sso_service],
  register: (router, deps) => {
    registerSsoProviders(router, deps);
    registerSdkSso(router, deps);
  },
};
