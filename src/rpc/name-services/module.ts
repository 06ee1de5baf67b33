import { NameServicesService, file_sigil_name_services_v0_name_services_service } from "../../gen/sigil/name_services/v0/name_services_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerNameServices } from "./handlers.js";

/** Name services (ENS-style subdomains) of an environment. */
export const nameServicesModule: ApiModule = {
  services: [NameServicesService],
  files: [file_sigil_name_services_v0_name_services_service],
  register: (router, deps) => registerNameServices(router, deps),
};
