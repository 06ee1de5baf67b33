import { ExportsService, file_sigil_exports_v0_exports_service } from "../../gen/sigil/exports/v0/exports_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerExports } from "./handlers.js";

/** Exports (Temporal workflow export/<id>) and their files. */
export const exportsModule: ApiModule = {
  services: [ExportsService],
  files: [file_sigil_exports_v0_exports_service],
  register: (router, deps) => registerExports(router, deps),
};
