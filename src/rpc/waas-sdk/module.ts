import { SdkWaasService, file_sigil_waas_v0_sdk_waas_service } from "../../gen/sigil/waas/v0/sdk_waas_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerSdkWaas } from "./handlers.js";

/** The signed-in end user's threshold wallets and their rooms (SDK, session JWT). */
export const sdkWaasModule: ApiModule = {
  services: [SdkWaasService],
  files: [file_sigil_waas_v0_sdk_waas_service],
  register: (router, deps) => registerSdkWaas(router, deps),
};
