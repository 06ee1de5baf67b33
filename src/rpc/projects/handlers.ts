import type { ConnectRouter } from "@connectrpc/connect";
import { ProjectsService } from "../../gen/sigil/projects/v0/projects_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import * as projects from "../../domain/projects/service.js";
import { orNull } from "../mappers.js";
import { pageOf } from "../paging.js";
import { toProject } from "./mappers.js";
import { organizationOf, projectOf } from "../tenant-context.js";

export function registerProjects(router: ConnectRouter, deps: Deps) {
  router.service(ProjectsService, {
    async listProjects(req, ctx) {
      const access = organizationOf(ctx);
      const r = await projects.listProjects(deps, access.organizationId, pageOf(req));
      return { projects: r.projects.map(toProject), count: r.count };
    },
    async createProject(req, ctx) {
      const access = organizationOf(ctx);
      return { project: toProject(await projects.createProject(deps, access, { name: req.name, description: orNull(req.description) })) };
    },
    async getProject(req, ctx) {
      return { project: toProject(await projects.getProject(deps, projectOf(ctx))) };
    },
    async updateProject(req, ctx) {
      const access = projectOf(ctx);
      const updated = await projects.updateProject(deps, access, {
        name: req.name,
        description: req.description === undefined ? undefined : orNull(req.description),
      });
      return { project: toProject(updated) };
    },
    async deleteProject(req, ctx) {
      await projects.deleteProject(deps, projectOf(ctx));
      return {};
    },
  });
}
