import { TestAccountApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** TestAccountApi: one scenario per operation, keyed `TestAccountApi.<operation>`, run in this order. */
export const testAccountApi: Scenarios = {
  "TestAccountApi.createTestAccount": ({ api, tenant }) => api(TestAccountApi).createTestAccount({ environmentId: tenant.environmentId }),
  "TestAccountApi.getTestAccount": ({ api, tenant }) => api(TestAccountApi).getTestAccount({ environmentId: tenant.environmentId }),
  "TestAccountApi.deleteTestAccount": ({ api, tenant }) => api(TestAccountApi).deleteTestAccount({ environmentId: tenant.environmentId }),
};
