import { EnvironmentsApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** EnvironmentsApi: one scenario per operation, keyed `EnvironmentsApi.<operation>`, run in this order. */
export const environmentsApi: Scenarios = {
  "EnvironmentsApi.getEnvironmentsByProjectId": ({ api, tenant }) => api(EnvironmentsApi).getEnvironmentsByProjectId({ projectId: tenant.projectId }),
  "EnvironmentsApi.getEnvironmentById": ({ api, tenant }) => api(EnvironmentsApi).getEnvironmentById({ environmentId: tenant.environmentId }),
  "EnvironmentsApi.getKeysForEnvironment": ({ api, tenant }) => api(EnvironmentsApi).getKeysForEnvironment({ environmentId: tenant.environmentId }),
  "EnvironmentsApi.getVisitorsCountByEnvironmentId": ({ api, tenant }) =>
    api(EnvironmentsApi).getVisitorsCountByEnvironmentId({ environmentId: tenant.environmentId }),
  "EnvironmentsApi.updateProjectSettings": async ({ api, tenant }) => {
    const current = await api(EnvironmentsApi).getEnvironmentById({ environmentId: tenant.environmentId });
    await api(EnvironmentsApi).updateProjectSettings({ environmentId: tenant.environmentId, projectSettings: current.settings });
  },
};
