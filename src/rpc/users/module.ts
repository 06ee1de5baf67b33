import { UsersService, file_sigil_users_v0_users_service } from "../../gen/sigil/users/v0/users_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerUsers } from "./handlers.js";

export const usersModule: ApiModule = {
  services: [UsersService],
  files: [file_sigil_users_v0_users_service],
  register: registerUsers,
};
