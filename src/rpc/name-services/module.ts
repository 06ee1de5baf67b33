import type { ConnectRouter } from "@connectrpc/connect";
import {
  GlobalWalletAccessControlService,
  file_sigil_global_wallet_v0_access_control_service,
} from "../../gen/sigil/global_wallet/v0/access_control_service_pb.js";
import { GlobalWalletService, file_sigil_global_wallet_v0_global_wallet_service } from "../../gen/sigil/global_wallet/v0/global_wallet_service_pb.js";
import { NameServicesService, file_sigil_name_services_v0_name_services_service } from "../../gen/sigil/name_services/v0/name_services_service_pb.js";
import { CustomNetworksService, file_sigil_networks_v0_custom_networks_service } from "../../gen/sigil/networks/v0/custom_networks_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import type { ApiModule } from "../module.js";
import { registerCustomNetworks } from "./custom-networks.js";
import { registerGlobalWallet } from "./global-wallet.js";
import { registerNameServices } from "./name-services.js";

/** Name services, the global wallet (settings and access control) and organizations' custom networks. */
export const nameServicesModule: ApiModule = {
  services: [NameServicesService, GlobalWalletService, GlobalWalletAccessControlService, CustomNetworksService],
  files: [
    file_sigil_name_services_v0_name_services_service,
    file_sigil_global_wallet_v0_global_wallet_service,
    file_sigil_global_wallet_v0_access_control_service,
    file_sigil_networks_v0_custom_networks_service,
  ],
  register(router: ConnectRouter, deps: Deps) {
    registerNameServices(router, deps);
    registerGlobalWallet(router, deps);
    registerCustomNetworks(router, deps);
  },
};
