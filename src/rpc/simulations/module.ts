import type { ConnectRouter } from "@connectrpc/connect";
import type { Deps } from "../../domain/deps.js";
import { SdkEvmSimulationService, file_sigil_simulations_v0_sdk_evm_simulation_service } from "../../gen/sigil/simulations/v0/sdk_evm_simulation_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerSdkEvmSimulations } from "./sdk-evm-handlers.js";

/** What a transaction or an ERC-4337 user operation would do, simulated on the environment's EVM node (SDK). */
export const simulationsModule: ApiModule = {
  services: [SdkEvmSimulationService],
  files: [file_sigil_simulations_v0_sdk_evm_simulation_service],
  register: (router: ConnectRouter, deps: Deps) => registerSdkEvmSimulations(router, deps),
};
