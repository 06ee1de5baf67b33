import { ExportFormatEnum, ExportModelEnum, ExportsApi, ExportStatusEnum } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** ExportsApi: one scenario per operation, keyed `ExportsApi.<operation>`, run in this order. */
export const exportsApi: Scenarios = {
  "ExportsApi.createExport": async ({ api, tenant, state }) => {
    const created = await api(ExportsApi).createExport({
      environmentId: tenant.environmentId,
      exportCreateRequest: { format: ExportFormatEnum.Csv, model: ExportModelEnum.Users },
    });
    state.exportId = created.id;
  },
  "ExportsApi.getEnvironmentExports": ({ api, tenant }) =>
    api(ExportsApi).getEnvironmentExports({ environmentId: tenant.environmentId, model: ExportModelEnum.Users }),
  "ExportsApi.getExportById": async ({ api, tenant, state }) => {
    // The export runs in the background: poll it (through the client) until it is done.
    for (let i = 0; i < 100; i++) {
      const found = await api(ExportsApi).getExportById({ environmentId: tenant.environmentId, exportId: state.exportId });
      if (found.status === ExportStatusEnum.Completed || found.status === ExportStatusEnum.Failed) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  },
  "ExportsApi.downloadExportById": ({ api, tenant, state }) =>
    api(ExportsApi).downloadExportById({ environmentId: tenant.environmentId, exportId: state.exportId }),
};
