import { randomUUID } from "node:crypto";
import { SessionsApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** SessionsApi: one scenario per operation, keyed `SessionsApi.<operation>`, run in this order. */
export const sessionsApi: Scenarios = {
  "SessionsApi.getSessionById": async ({ api, app, rest, tenant, state }) => {
    const created = await rest("POST", `/environments/${tenant.environmentId}/users`, { email: `session-${randomUUID()}@example.com` });
    state.sessionUserId = created.user.id;
    // Sessions are opened by SDK sign-ins; the management surface only reads and revokes them.
    state.sessionId = randomUUID();
    await app.db.none("INSERT INTO sessions (id, environment_id, user_id, ip_address, user_agent) VALUES ($1, $2, $3, '10.0.0.1', 'compat')", [
      state.sessionId,
      tenant.environmentId,
      state.sessionUserId,
    ]);
    await api(SessionsApi).getSessionById({ userId: state.sessionUserId, sessionId: state.sessionId });
  },
  "SessionsApi.revokeSessionById": ({ api, state }) => api(SessionsApi).revokeSessionById({ sessionId: state.sessionId }),
};
