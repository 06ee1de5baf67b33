import { AccessOutcomeEnum, AllowlistsApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** AllowlistsApi: one scenario per operation, keyed `AllowlistsApi.<operation>`, run in this order. */
export const allowlistsApi: Scenarios = {
  "AllowlistsApi.createAllowlistByEnvironmentId": async ({ api, tenant, state }) => {
    const list = await api(AllowlistsApi).createAllowlistByEnvironmentId({
      environmentId: tenant.environmentId,
      postAllowlistsRequest: { name: "VIPs", outcome: AccessOutcomeEnum.SiteAccess },
    });
    state.allowlistId = list.id;
  },
  "AllowlistsApi.getAllowlistsByEnvironmentId": ({ api, tenant }) =>
    api(AllowlistsApi).getAllowlistsByEnvironmentId({ environmentId: tenant.environmentId }),
  "AllowlistsApi.getAllowlistsById": ({ api, state }) => api(AllowlistsApi).getAllowlistsById({ allowlistId: state.allowlistId }),
  "AllowlistsApi.updateAllowlistById": ({ api, state }) =>
    api(AllowlistsApi).updateAllowlistById({ allowlistId: state.allowlistId, postAllowlistsRequest: { name: "VIPs 2" } }),
  "AllowlistsApi.disableAllowlistById": ({ api, state }) => api(AllowlistsApi).disableAllowlistById({ allowlistId: state.allowlistId }),
  "AllowlistsApi.enableAllowlistById": ({ api, state }) => api(AllowlistsApi).enableAllowlistById({ allowlistId: state.allowlistId }),
  "AllowlistsApi.postEntryByAllowlistId": async ({ api, state }) => {
    const entry = await api(AllowlistsApi).postEntryByAllowlistId({
      allowlistId: state.allowlistId,
      postAllowlistEntriesRequest: { email: "vip@example.com" },
    });
    state.allowlistEntryId = entry.id;
  },
  "AllowlistsApi.getEntriesByAllowlistId": ({ api, state }) => api(AllowlistsApi).getEntriesByAllowlistId({ allowlistId: state.allowlistId }),
  "AllowlistsApi.deleteAllowlistEntryById": ({ api, state }) =>
    api(AllowlistsApi).deleteAllowlistEntryById({ allowlistEntryId: state.allowlistEntryId }),
  "AllowlistsApi.deleteAllowlistById": ({ api, state }) => api(AllowlistsApi).deleteAllowlistById({ allowlistId: state.allowlistId }),
};
