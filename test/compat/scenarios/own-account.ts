import { SDKApi, UserFieldsCheckEnum } from "@dynamic-labs/sdk-api";
import { signInAs } from "../../support/sessions.js";
import type { Scenarios } from "../harness.js";

/** The signed-in end user's own account (SDKApi, the session JWT as bearer): one scenario per operation, in order. */
export const ownAccountApi: Scenarios = {
  "SDKApi.getAuthenticatedUser": async ({ api, app, rest, tenant, state }) => {
    await rest("PUT", `/environments/${tenant.environmentId}`, {
      sdk: { collectUserData: { email: { enabled: true, required: false }, firstName: { enabled: true, required: false }, username: { enabled: true, required: false } } },
    });
    state.me = await signInAs(app, tenant.environmentId);
    return api(SDKApi, state.me.jwt).getAuthenticatedUser({ environmentId: tenant.environmentId });
  },
  "SDKApi.updateSelf": ({ api, tenant, state }) =>
    api(SDKApi, state.me.jwt).updateSelf({ environmentId: tenant.environmentId, userFields: { firstName: "Ada", username: "ada-compat" } }),
  "SDKApi.getUserFieldsCheck": ({ api, tenant, state }) =>
    api(SDKApi, state.me.jwt).getUserFieldsCheck({ environmentId: tenant.environmentId, filter: { field: UserFieldsCheckEnum.Email, value: state.me.email } }),
  "SDKApi.selectUserWallet": async ({ api, rest, tenant, state }) => {
    const wallet = await rest("POST", `/environments/${tenant.environmentId}/users/${state.me.userId}/wallets`, {
      publicWalletAddress: "0x52908400098527886E0F7030069857D2E4169EE7", chain: "EVM", walletName: "metamask", walletProvider: "browserExtension",
    });
    return api(SDKApi, state.me.jwt).selectUserWallet({ environmentId: tenant.environmentId, userWalletSelectionRequest: { walletId: wallet.id } });
  },
  "SDKApi.hardDeleteUser": ({ api, tenant, state }) => api(SDKApi, state.me.jwt).hardDeleteUser({ environmentId: tenant.environmentId }),
};
