import { SdkVerificationsService, file_sigil_verifications_v0_verifications_service } from "../../gen/sigil/verifications/v0/verifications_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerVerifications } from "./handlers.js";

/** One-time codes by e-mail and SMS on the SDK surface: send, resend, sign in with, add to the signed-in user. */
export const verificationsModule: ApiModule = {
  services: [SdkVerificationsService],
  files: [file_sigil_verifications_v0_verifications_service],
  register: (router, deps) => registerVerifications(router, deps),
};
