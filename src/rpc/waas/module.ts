import { WaasService, file_sigil_waas_v0_waas_service } from "../../gen/sigil/waas/v0/waas_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerWaas } from "./handlers.js";

export const waasModule: ApiModule = {
  services: [WaasService],
  files: [file_sigil_waas_v0_waas_service],
  register: registerWaas,
};
