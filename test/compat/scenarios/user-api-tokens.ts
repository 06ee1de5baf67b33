import { UserApiTokensApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** UserApiTokensApi: one scenario per operation, keyed `UserApiTokensApi.<operation>`, run in this order. */
export const userApiTokensApi: Scenarios = {
  "UserApiTokensApi.createUserApiToken": async ({ memberApi, state }) => {
    const res = await memberApi(UserApiTokensApi).createUserApiToken({ postTokenFields: { note: "account token" } });
    state.userTokenId = res.token.id;
  },
  "UserApiTokensApi.getUserApiTokens": ({ memberApi }) => memberApi(UserApiTokensApi).getUserApiTokens(),
  "UserApiTokensApi.deleteUserApiToken": ({ memberApi, state }) => memberApi(UserApiTokensApi).deleteUserApiToken({ tokenId: state.userTokenId }),
};
