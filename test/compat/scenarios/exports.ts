import { ExportFormatEnum, ExportModelEnum, ExportsApi, ExportStatusEnum } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";
import { waitFor } from "../../support/poll.js";

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
    const found = () => api(ExportsApi).getExportById({ environmentId: tenant.environmentId, exportId: state.exportId });
    await waitFor("the export to finish", found, { until: (e) => e.status === ExportStatusEnum.Completed || e.status === ExportStatusEnum.Failed, timeoutMs: 30_000 });
  },
  "ExportsApi.downloadExportById": ({ api, tenant, state }) =>
    api(ExportsApi).downloadExportById({ environmentId: tenant.environmentId, exportId: state.exportId }),
};
