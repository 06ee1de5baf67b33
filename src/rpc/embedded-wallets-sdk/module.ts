import { SdkEmbeddedWalletsService, file_sigil_embedded_wallets_v0_sdk_embedded_wallets_service } from "../../gen/sigil/embedded_wallets/v0/sdk_embedded_wallets_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerSdkEmbeddedWallets } from "./handlers.js";

/** The signed-in end user's own embedded wallets (SDK, session JWT). */
export const sdkEmbeddedWalletsModule: ApiModule = {
  services: [SdkEmbeddedWalletsService],
  files: [file_sigil_embedded_wallets_v0_sdk_embedded_wallets_service],
  register: (router, deps) => registerSdkEmbeddedWallets(router, deps),
};
