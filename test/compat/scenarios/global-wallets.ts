import { GlobalWalletsApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** GlobalWalletsApi: one scenario per operation, keyed `GlobalWalletsApi.<operation>`, run in this order. */
export const globalWalletsApi: Scenarios = {
  "GlobalWalletsApi.createGlobalWalletSettings": ({ api, tenant }) =>
    api(GlobalWalletsApi).createGlobalWalletSettings({
      environmentId: tenant.environmentId,
      globalWalletSettingsCreateRequest: {
        walletName: "My wallet",
        popupPageTitle: "Sign in",
        walletIconUrl: "https://example.com/icon.png",
        termsOfServiceUrl: "https://example.com/terms",
        privacyPolicyUrl: "https://example.com/privacy",
        customMenuLinks: [{ label: "Help", url: "https://example.com/help" }],
        enableLoginWithExternalWallets: true,
      },
    }),
  "GlobalWalletsApi.getGlobalWalletSettings": ({ api, tenant }) =>
    api(GlobalWalletsApi).getGlobalWalletSettings({ environmentId: tenant.environmentId }),
  "GlobalWalletsApi.updateGlobalWalletSettings": ({ api, tenant }) =>
    api(GlobalWalletsApi).updateGlobalWalletSettings({
      environmentId: tenant.environmentId,
      globalWalletSettingsUpdateRequest: { walletName: "My wallet 2", termsOfServiceAndPrivacyPolicyMarkdown: "By continuing you accept [the terms](https://example.com/terms)." },
    }),
  "GlobalWalletsApi.enableGlobalWallet": ({ api, tenant }) => api(GlobalWalletsApi).enableGlobalWallet({ environmentId: tenant.environmentId }),
  "GlobalWalletsApi.disableGlobalWallet": ({ api, tenant }) => api(GlobalWalletsApi).disableGlobalWallet({ environmentId: tenant.environmentId }),
};
