import { WalletsService, file_sigil_wallets_v0_wallets_service } from "../../gen/sigil/wallets/v0/wallets_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerWallets } from "./handlers.js";

/** Wallets: the end users' wallets of an environment. */
export const walletsModule: ApiModule = {
  services: [WalletsService],
  files: [file_sigil_wallets_v0_wallets_service],
  register: (router, deps) => registerWallets(router, deps),
};
