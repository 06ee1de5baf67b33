import { ExternalJwtService, file_sigil_external_jwt_v0_external_jwt_service } from "../../gen/sigil/external_jwt/v0/external_jwt_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerExternalJwt } from "./handlers.js";

/** External JWT sign-in settings and their check. */
export const externalJwtModule: ApiModule = {
  services: [ExternalJwtService],
  files: [file_sigil_external_jwt_v0_external_jwt_service],
  register: (router, deps) => registerExternalJwt(router, deps),
};
