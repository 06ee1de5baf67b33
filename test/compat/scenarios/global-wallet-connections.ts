import { GlobalWalletConnectionsApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** GlobalWalletConnectionsApi: one scenario per operation, keyed `GlobalWalletConnectionsApi.<operation>`, run in this order. */
export const globalWalletConnectionsApi: Scenarios = {
  "GlobalWalletConnectionsApi.getGlobalWalletConnections": ({ api, tenant }) =>
    api(GlobalWalletConnectionsApi).getGlobalWalletConnections({ environmentId: tenant.environmentId }),
};
