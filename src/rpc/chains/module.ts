import { ChainsService, file_sigil_chains_v0_chains_service } from "../../gen/sigil/chains/v0/chains_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerChains } from "./handlers.js";

/** Chains: the catalogue of known tokens per chain (not environment-bound). */
export const chainsModule: ApiModule = {
  services: [ChainsService],
  files: [file_sigil_chains_v0_chains_service],
  register: (router) => registerChains(router),
};
