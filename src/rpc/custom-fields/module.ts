import { CustomFieldsService, file_sigil_custom_fields_v0_custom_fields_service } from "../../gen/sigil/custom_fields/v0/custom_fields_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerCustomFields } from "./handlers.js";

/** Custom fields: what an environment collects from its end users beyond the built-in fields. */
export const customFieldsModule: ApiModule = {
  services: [CustomFieldsService],
  files: [file_sigil_custom_fields_v0_custom_fields_service],
  register: (router, deps) => registerCustomFields(router, deps),
};
