import { AllowlistsService, file_sigil_allowlists_v0_allowlists_service } from "../../gen/sigil/allowlists/v0/allowlists_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerAllowlists } from "./handlers.js";

/** Allowlists: who may sign in, by wallet, e-mail, domain or phone. */
export const allowlistsModule: ApiModule = {
  services: [AllowlistsService],
  files: [file_sigil_allowlists_v0_allowlists_service],
  register: (router, deps) => registerAllowlists(router, deps),
};
