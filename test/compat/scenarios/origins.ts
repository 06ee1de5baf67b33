import { OriginsApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** OriginsApi: one scenario per operation, keyed `OriginsApi.<operation>`, run in this order. */
export const originsApi: Scenarios = {
  "OriginsApi.addOrigin": async ({ api, tenant, state }) => {
    const res = await api(OriginsApi).addOrigin({
      environmentId: tenant.environmentId,
      inlineObject: { origin: "https://app.example.com" },
    });
    state.originId = res.origin?.id;
  },
  "OriginsApi.getOrigins": ({ api, tenant }) => api(OriginsApi).getOrigins({ environmentId: tenant.environmentId }),
  "OriginsApi.deleteOriginById": ({ api, state }) => api(OriginsApi).deleteOriginById({ originId: state.originId }),
};
