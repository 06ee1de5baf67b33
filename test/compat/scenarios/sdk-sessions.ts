import { SDKApi } from "@dynamic-labs/sdk-api";
import { signInAs } from "../../support/sessions.js";
import type { Scenarios } from "../harness.js";

/** SDKApi, end users' sessions: JWKS, check, refresh, sign out (run in this order). */
export const sdkSessionsApi: Scenarios = {
  "SDKApi.getJwksByEnvironmentId": ({ api, tenant }) => api(SDKApi).getJwksByEnvironmentId({ environmentId: tenant.environmentId }),
  "SDKApi.getJwksJsonByEnvironmentId": ({ api, tenant }) => api(SDKApi).getJwksJsonByEnvironmentId({ environmentId: tenant.environmentId }),
  "SDKApi.sessionCheck": async ({ api, app, tenant, state }) => {
    state.endUser = await signInAs(app, tenant.environmentId);
    return api(SDKApi, state.endUser.jwt).sessionCheck({ environmentId: tenant.environmentId });
  },
  "SDKApi.refreshAuth": async ({ api, tenant, state }) => {
    const r = await api(SDKApi, state.endUser.jwt).refreshAuth({ environmentId: tenant.environmentId });
    state.endUser.jwt = r.jwt;
  },
  "SDKApi.revokeSession": ({ api, tenant, state }) => api(SDKApi, state.endUser.jwt).revokeSession({ environmentId: tenant.environmentId }),
};
