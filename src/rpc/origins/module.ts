import { OriginsService, file_sigil_origins_v0_origins_service } from "../../gen/sigil/origins/v0/origins_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerOrigins } from "./handlers.js";

/** Origins: the browser origins an environment's SDK surface accepts (its CORS allow-list). */
export const originsModule: ApiModule = {
  services: [OriginsService],
  files: [file_sigil_origins_v0_origins_service],
  register: (router, deps) => registerOrigins(router, deps),
};
