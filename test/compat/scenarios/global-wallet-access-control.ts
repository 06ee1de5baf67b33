import { GlobalWalletAccessControlApi, GlobalWalletAccessControlTypeEnum } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** GlobalWalletAccessControlApi: one scenario per operation, keyed `GlobalWalletAccessControlApi.<operation>`, run in this order. */
export const globalWalletAccessControlApi: Scenarios = {
  "GlobalWalletAccessControlApi.createGlobalWalletAccessControl": async ({ api, tenant, rest }) => {
    // The access control belongs to the environment's global wallet.
    await rest("POST", `/environments/${tenant.environmentId}/globalWallet/settings`, { walletName: "Access wallet" }).catch(() => undefined);
    return api(GlobalWalletAccessControlApi).createGlobalWalletAccessControl({
      environmentId: tenant.environmentId,
      globalWalletAccessControlUpdateRequest: { type: GlobalWalletAccessControlTypeEnum.Allow },
    });
  },
  "GlobalWalletAccessControlApi.addGlobalWalletAccessControlDomain": async ({ api, tenant, state }) => {
    const domain = await api(GlobalWalletAccessControlApi).addGlobalWalletAccessControlDomain({
      environmentId: tenant.environmentId,
      globalWalletAccessControlDomainCreateRequest: { domain: "app.example.com" },
    });
    state.domainId = domain.id;
  },
  "GlobalWalletAccessControlApi.getGlobalWalletAccessControlList": ({ api, tenant }) =>
    api(GlobalWalletAccessControlApi).getGlobalWalletAccessControlList({ environmentId: tenant.environmentId }),
  "GlobalWalletAccessControlApi.updateGlobalWalletAccessControl": ({ api, tenant }) =>
    api(GlobalWalletAccessControlApi).updateGlobalWalletAccessControl({
      environmentId: tenant.environmentId,
      globalWalletAccessControlUpdateRequest: { type: GlobalWalletAccessControlTypeEnum.Block },
    }),
  "GlobalWalletAccessControlApi.enableGlobalWalletAccessControl": ({ api, tenant }) =>
    api(GlobalWalletAccessControlApi).enableGlobalWalletAccessControl({ environmentId: tenant.environmentId }),
  "GlobalWalletAccessControlApi.disableGlobalWalletAccessControl": ({ api, tenant }) =>
    api(GlobalWalletAccessControlApi).disableGlobalWalletAccessControl({ environmentId: tenant.environmentId }),
  "GlobalWalletAccessControlApi.deleteGlobalWalletAccessControlDomainById": ({ api, tenant, state }) =>
    api(GlobalWalletAccessControlApi).deleteGlobalWalletAccessControlDomainById({
      environmentId: tenant.environmentId,
      globalWalletAccessControlDomainId: state.domainId,
    }),
};
