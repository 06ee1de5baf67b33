import { OwnAccountService, file_sigil_own_account_v0_own_account_service } from "../../gen/sigil/own_account/v0/own_account_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerOwnAccount } from "./handlers.js";

/** The signed-in end user's own account (SDK, session JWT). */
export const ownAccountModule: ApiModule = {
  services: [OwnAccountService],
  files: [file_sigil_own_account_v0_own_account_service],
  register: (router, deps) => registerOwnAccount(router, deps),
};
