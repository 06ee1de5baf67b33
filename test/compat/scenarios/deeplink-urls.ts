import { DeeplinkUrlsApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** DeeplinkUrlsApi: one scenario per operation, keyed `DeeplinkUrlsApi.<operation>`, run in this order. */
export const deeplinkUrlsApi: Scenarios = {
  "DeeplinkUrlsApi.addDeeplinkUrl": async ({ api, tenant, state }) => {
    const link = await api(DeeplinkUrlsApi).addDeeplinkUrl({
      environmentId: tenant.environmentId,
      addDeeplinkUrlRequest: { url: "myapp://callback" },
    });
    state.deeplinkUrlId = link.id;
  },
  "DeeplinkUrlsApi.getDeeplinkUrls": ({ api, tenant }) => api(DeeplinkUrlsApi).getDeeplinkUrls({ environmentId: tenant.environmentId }),
  "DeeplinkUrlsApi.deleteDeeplinkUrlById": ({ api, state }) =>
    api(DeeplinkUrlsApi).deleteDeeplinkUrlById({ deeplinkUrlId: state.deeplinkUrlId }),
};
