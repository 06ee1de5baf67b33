import { ProjectsService, file_sigil_projects_v0_projects_service } from "../../gen/sigil/projects/v0/projects_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerProjects } from "./handlers.js";

/** Projects: an organization's projects, each with a live and a sandbox environment. */
export const projectsModule: ApiModule = {
  services: [ProjectsService],
  files: [file_sigil_projects_v0_projects_service],
  register: (router, deps) => registerProjects(router, deps),
};
