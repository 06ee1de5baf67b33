import { CustomHostnamesService, file_sigil_custom_hostnames_v0_custom_hostnames_service } from "../../gen/sigil/custom_hostnames/v0/custom_hostnames_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerCustomHostnames } from "./handlers.js";

/** Custom hostnames: an environment's own domains, verified by DNS records. */
export const customHostnamesModule: ApiModule = {
  services: [CustomHostnamesService],
  files: [file_sigil_custom_hostnames_v0_custom_hostnames_service],
  register: (router, deps) => registerCustomHostnames(router, deps),
};
