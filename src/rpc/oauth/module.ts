import { OauthService, file_sigil_oauth_v0_oauth_service } from "../../gen/sigil/oauth/v0/oauth_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerOauth } from "./handlers.js";

export const oauthModule: ApiModule = {
  services: [OauthService],
  files: [file_sigil_oauth_v0_oauth_service],
  register: registerOauth,
};
