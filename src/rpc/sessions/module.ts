import { SdkSessionsService, file_sigil_sessions_v0_sessions_service } from "../../gen/sigil/sessions/v0/sessions_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerSessions } from "./handlers.js";

/** End users' sessions on the SDK surface: JWKS, check, refresh, sign out. */
export const sessionsModule: ApiModule = {
  services: [SdkSessionsService],
  files: [file_sigil_sessions_v0_sessions_service],
  register: (router, deps) => registerSessions(router, deps),
};
