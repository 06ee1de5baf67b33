import { SdkSocialSignInService, file_sigil_social_sign_in_v0_social_sign_in_service } from "../../gen/sigil/social_sign_in/v0/social_sign_in_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerSocialSignIn } from "./handlers.js";

/** Signing in with a decentralized-social account (its custody address's signed message) on the SDK surface. */
export const socialSignInModule: ApiModule = {
  services: [SdkSocialSignInService],
  files: [file_sigil_social_sign_in_v0_social_sign_in_service],
  register: (router, deps) => registerSocialSignIn(router, deps),
};
