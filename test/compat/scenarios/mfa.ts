import { randomUUID } from "node:crypto";
import { MfaApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** MfaApi: one scenario per operation, keyed `MfaApi.<operation>`, run in this order. */
export const mfaApi: Scenarios = {
  "MfaApi.resetUserMfa": async ({ api, rest, tenant, state }) => {
    const created = await rest("POST", `/environments/${tenant.environmentId}/users`, { email: `mfa-${randomUUID()}@example.com` });
    state.mfaUserId = created.user.id;
    await api(MfaApi).resetUserMfa({ userId: state.mfaUserId });
  },
  "MfaApi.resetAllMfaDevices": ({ api, state }) => api(MfaApi).resetAllMfaDevices({ userId: state.mfaUserId }),
};
