import type { ConnectRouter } from "@connectrpc/connect";
import { SessionsService, file_sigil_users_v0_sessions_service } from "../../gen/sigil/users/v0/sessions_service_pb.js";
import { UsersService, file_sigil_users_v0_users_service } from "../../gen/sigil/users/v0/users_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import type { ApiModule } from "../module.js";
import { registerUsers } from "./handlers.js";
import { registerSessions } from "./sessions-handlers.js";

/** Users: an environment's end users and their sessions. */
export const usersModule: ApiModule = {
  services: [UsersService, SessionsService],
  files: [file_sigil_users_v0_users_service, file_sigil_users_v0_sessions_service],
  register(router: ConnectRouter, deps: Deps) {
    registerUsers(router, deps);
    registerSessions(router, deps);
  },
};
