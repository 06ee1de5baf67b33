import { GlobalWalletService, file_sigil_global_wallet_v0_global_wallet_service } from "../../gen/sigil/global_wallet/v0/global_wallet_service_pb.js";
import { GlobalWalletAccessControlService, file_sigil_global_wallet_v0_access_control_service } from "../../gen/sigil/global_wallet/v0/access_control_service_pb.js";
import { SdkGlobalWalletService, file_sigil_global_wallet_v0_sdk_global_wallet_service } from "../../gen/sigil/global_wallet/v0/sdk_global_wallet_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerGlobalWallet } from "./handlers.js";
import { registerSdkGlobalWallet } from "./sdk-handlers.js";

/** The global wallet: settings, connections and access control; on the SDK surface, the user's connections. */
export const globalWalletModule: ApiModule = {
  services: [GlobalWalletService, GlobalWalletAccessControlService, SdkGlobalWalletService],
  files: [file_sigil_global_wallet_v0_global_wallet_service, file_sigil_global_wallet_v0_access_control_service, file_sigil_global_wallet_v0_sdk_global_wallet_service],
  register: (router, deps) => {
    registerGlobalWallet(router, deps);
    registerSdkGlobalWallet(router, deps);
  },
};
