import { CustomNetworksService, file_sigil_custom_networks_v0_custom_networks_service } from "../../gen/sigil/custom_networks/v0/custom_networks_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerCustomNetworks } from "./handlers.js";

/** Organizations' custom networks. */
export const customNetworksModule: ApiModule = {
  services: [CustomNetworksService],
  files: [file_sigil_custom_networks_v0_custom_networks_service],
  register: (router, deps) => registerCustomNetworks(router, deps),
};
