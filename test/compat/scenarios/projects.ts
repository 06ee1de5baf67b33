import { ProjectsApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** ProjectsApi: one scenario per operation, keyed `ProjectsApi.<operation>`, run in this order. */
export const projectsApi: Scenarios = {
  "ProjectsApi.getProjects": ({ memberApi, tenant }) => memberApi(ProjectsApi).getProjects({ organizationId: tenant.organizationId }),
  "ProjectsApi.createProject": async ({ memberApi, tenant, state }) => {
    const res = await memberApi(ProjectsApi).createProject({ organizationId: tenant.organizationId, projectRequest: { name: "Second project" } });
    state.projectId = res.project!.id;
  },
  "ProjectsApi.getProjectById": ({ memberApi, state }) => memberApi(ProjectsApi).getProjectById({ projectId: state.projectId }),
  "ProjectsApi.updateProject": ({ memberApi, state }) =>
    memberApi(ProjectsApi).updateProject({ projectId: state.projectId, updateProjectRequest: { name: "Renamed project" } }),
  "ProjectsApi.deleteProjectById": ({ memberApi, state }) => memberApi(ProjectsApi).deleteProjectById({ projectId: state.projectId }),
};
