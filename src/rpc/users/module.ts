import type { ConnectRouter } from "@connectrpc/connect";
import { CustomFieldsService, file_sigil_users_v0_custom_fields_service } from "../../gen/sigil/users/v0/custom_fields_service_pb.js";
import { SessionsService, file_sigil_users_v0_sessions_service } from "../../gen/sigil/users/v0/sessions_service_pb.js";
import { UsersService, file_sigil_users_v0_users_service } from "../../gen/sigil/users/v0/users_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import type { ApiModule } from "../module.js";
import { registerCustomFields } from "./custom-fields-handlers.js";
import { registerUsers } from "./handlers.js";
import { registerSessions } from "./sessions-handlers.js";

export const usersModule: ApiModule = {
  services: [UsersService, SessionsService, CustomFieldsService],
  files: [file_sigil_users_v0_users_service, file_sigil_users_v0_sessions_service, file_sigil_users_v0_custom_fields_service],
  register(router: ConnectRouter, deps: Deps) {
    registerUsers(router, deps);
    registerSessions(router, deps);
    registerCustomFields(router, deps);
  },
};
