import { CustomHostnamesApi, CustomHostnameUsageEnum } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** CustomHostnamesApi: one scenario per operation, keyed `CustomHostnamesApi.<operation>`, run in this order. */
export const customHostnamesApi: Scenarios = {
  "CustomHostnamesApi.createCustomHostname": async ({ api, tenant, state }) => {
    const host = await api(CustomHostnamesApi).createCustomHostname({
      environmentId: tenant.environmentId,
      // Hostnames are unique across the service, and test files share one database.
      customHostnameCreateRequest: { hostname: `auth-${tenant.environmentId.slice(0, 8)}.example.com`, usage: CustomHostnameUsageEnum.Cookies },
    });
    state.customHostnameId = host.id;
  },
  "CustomHostnamesApi.getCustomHostnames": ({ api, tenant }) =>
    api(CustomHostnamesApi).getCustomHostnames({ environmentId: tenant.environmentId }),
  "CustomHostnamesApi.deleteCustomHostname": ({ api, tenant, state }) =>
    api(CustomHostnamesApi).deleteCustomHostname({ environmentId: tenant.environmentId, customHostnameId: state.customHostnameId }),
};
