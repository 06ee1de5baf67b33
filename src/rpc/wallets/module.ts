import { WalletsService, file_sigil_wallets_v0_wallets_service } from "../../gen/sigil/wallets/v0/wallets_service_pb.js";
import {
  EmbeddedWalletsService,
  file_sigil_embedded_wallets_v0_embedded_wallets_service,
} from "../../gen/sigil/embedded_wallets/v0/embedded_wallets_service_pb.js";
import { ChainsService, file_sigil_wallets_v0_chains_service } from "../../gen/sigil/wallets/v0/chains_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerChains } from "./chains-handlers.js";
import { registerEmbeddedWallets } from "./embedded-handlers.js";
import { registerWallets } from "./handlers.js";

export const walletsModule: ApiModule = {
  services: [WalletsService, EmbeddedWalletsService, ChainsService],
  files: [file_sigil_wallets_v0_wallets_service, file_sigil_embedded_wallets_v0_embedded_wallets_service, file_sigil_wallets_v0_chains_service],
  register(router, deps) {
    registerWallets(router, deps);
    registerEmbeddedWallets(router, deps);
    registerChains(router);
  },
};
