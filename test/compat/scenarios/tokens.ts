import { TokenScopes, TokensApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** TokensApi: one scenario per operation, keyed `TokensApi.<operation>`, run in this order. */
export const tokensApi: Scenarios = {
  "TokensApi.postToken": async ({ api, tenant, state }) => {
    const res = await api(TokensApi).postToken({
      environmentId: tenant.environmentId,
      postTokenFields: { note: "ci token", scopes: [TokenScopes.EnvironmentUsersRead] },
    });
    state.environmentTokenId = res.token.id;
  },
  "TokensApi.getTokens": ({ api, tenant }) => api(TokensApi).getTokens({ environmentId: tenant.environmentId }),
  "TokensApi.deleteTokenById": ({ api, tenant, state }) =>
    api(TokensApi).deleteTokenById({ environmentId: tenant.environmentId, tokenId: state.environmentTokenId }),
};
