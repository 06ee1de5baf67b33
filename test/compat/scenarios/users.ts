import { ProviderEnum, UsersApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

const unique = () => `${Date.now()}-${Math.random().toString(16).slice(2)}`;

/** UsersApi: one scenario per operation, keyed `UsersApi.<operation>`, run in this order. */
export const usersApi: Scenarios = {
  "UsersApi.createUser": async ({ api, tenant, state }) => {
    const res = await api(UsersApi).createUser({
      environmentId: tenant.environmentId,
      internalBulkUpdateUserFields: {
        email: `ada-${unique()}@example.com`,
        firstName: "Ada",
        alias: "ada",
        metadata: { plan: "pro" },
        oauthAccounts: [{ provider: ProviderEnum.Github, accountId: `gh-${unique()}`, username: "ada", emails: ["ada@example.com"] }],
      },
    });
    state.userId = res.user!.id;
  },
  "UsersApi.bulkCreateUser": ({ api, tenant }) =>
    api(UsersApi).bulkCreateUser({
      environmentId: tenant.environmentId,
      internalUserFields: [{ email: `bulk-a-${unique()}@example.com` }, { email: `bulk-b-${unique()}@example.com`, firstName: "Bea" }],
    }),
  "UsersApi.getEnvironmentUsers": ({ api, tenant }) =>
    api(UsersApi).getEnvironmentUsers({ environmentId: tenant.environmentId, limit: 10, offset: 0 }),
  "UsersApi.getUser": ({ api, tenant, state }) => api(UsersApi).getUser({ environmentId: tenant.environmentId, userId: state.userId }),
  "UsersApi.getUserLegacy": ({ api, state }) => api(UsersApi).getUserLegacy({ userId: state.userId }),
  "UsersApi.updateUser": ({ api, tenant, state }) =>
    api(UsersApi).updateUser({ environmentId: tenant.environmentId, userId: state.userId, internalUpdatableUserFields: { lastName: "Lovelace" } }),
  "UsersApi.updateUserLegacy": ({ api, state }) =>
    api(UsersApi).updateUserLegacy({ userId: state.userId, internalUpdatableUserFields: { jobTitle: "Engineer" } }),
  "UsersApi.getUserOauthAccessToken": async ({ api, rest, tenant }) => {
    // The client's CreateUserOauthRequest carries no provider token: store one through Sigil's own field.
    const created = await rest("POST", `/environments/${tenant.environmentId}/users`, {
      oauthAccounts: [{ provider: "github", accountId: `gh-${unique()}`, username: "tok", accessToken: "gho_compat" }],
    });
    await api(UsersApi).getUserOauthAccessToken({ oauthAccountId: created.user.oauthAccounts[0].id });
  },
  "UsersApi.revokeUserSessions": ({ api, tenant, state }) =>
    api(UsersApi).revokeUserSessions({ environmentId: tenant.environmentId, userId: state.userId }),
  "UsersApi.revokeUserSessionsLegacy": ({ api, state }) => api(UsersApi).revokeUserSessionsLegacy({ userId: state.userId }),
  "UsersApi.deleteUser": ({ api, tenant, state }) => api(UsersApi).deleteUser({ environmentId: tenant.environmentId, userId: state.userId }),
  "UsersApi.deleteUserLegacy": async ({ api, rest, tenant }) => {
    const created = await rest("POST", `/environments/${tenant.environmentId}/users`, { email: `gone-${unique()}@example.com` });
    await api(UsersApi).deleteUserLegacy({ userId: created.user.id });
  },
};
