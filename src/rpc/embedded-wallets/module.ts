import {
  EmbeddedWalletsService,
  file_sigil_embedded_wallets_v0_embedded_wallets_service,
} from "../../gen/sigil/embedded_wallets/v0/embedded_wallets_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerEmbeddedWallets } from "./handlers.js";

/** Embedded wallets: wallets the service creates and keeps for an environment's end users. */
export const embeddedWalletsModule: ApiModule = {
  services: [EmbeddedWalletsService],
  files: [file_sigil_embedded_wallets_v0_embedded_wallets_service],
  register: (router, deps) => registerEmbeddedWallets(router, deps),
};
