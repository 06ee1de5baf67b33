import { EnvironmentsService, file_sigil_environments_v0_environments_service } from "../../gen/sigil/environments/v0/environments_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerEnvironments } from "./handlers.js";

/** Environments: a project's live and sandbox environments, their settings and signing keys. */
export const environmentsModule: ApiModule = {
  services: [EnvironmentsService],
  files: [file_sigil_environments_v0_environments_service],
  register: (router, deps) => registerEnvironments(router, deps),
};
