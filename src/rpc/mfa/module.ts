import { SdkMfaService, file_sigil_mfa_v0_mfa_service } from "../../gen/sigil/mfa/v0/mfa_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerMfa } from "./handlers.js";

/** The signed-in end user's second factors (SDK, session JWT). */
export const mfaModule: ApiModule = {
  services: [SdkMfaService],
  files: [file_sigil_mfa_v0_mfa_service],
  register: (router, deps) => registerMfa(router, deps),
};
