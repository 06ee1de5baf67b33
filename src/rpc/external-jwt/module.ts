import { ExternalJwtService, file_sigil_external_jwt_v0_external_jwt_service } from "../../gen/sigil/external_jwt/v0/external_jwt_service_pb.js";
import { SdkExternalAuthService, file_sigil_external_jwt_v0_sdk_external_auth_service } from "../../gen/sigil/external_jwt/v0/sdk_external_auth_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerExternalJwt } from "./handlers.js";
import { registerSdkExternalAuth } from "./sdk-handlers.js";

/** External JWT sign-in settings and their check, and signing in with such a token on the SDK surface. */
export const externalJwtModule: ApiModule = {
  services: [ExternalJwtService, SdkExternalAuthService],
  files: [file_sigil_external_jwt_v0_external_jwt_service, file_sigil_external_jwt_v0_sdk_external_auth_service],
  register: (router, deps) => {
    registerExternalJwt(router, deps);
    registerSdkExternalAuth(router, deps);
  },
};
