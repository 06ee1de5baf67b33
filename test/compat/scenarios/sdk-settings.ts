import { ChainEnum, SDKApi, WalletProviderEnum } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

const address = "0x52908400098527886E0F7030069857D2E4169EE7";

/** What a client app loads first (SDKApi, public): one scenario per operation, run in this order. */
export const sdkSettingsApi: Scenarios = {
  "SDKApi.getEnvironmentSettings": async ({ api, rest, tenant }) => {
    // Something in every section the client models: a chain, a provider, a custom field and a network.
    await rest("PUT", `/environments/${tenant.environmentId}`, { chains: [{ name: "EVM", enabled: true }], general: { displayName: "Compat" } });
    await rest("POST", `/environments/${tenant.environmentId}/settings/providers`, { provider: "magicLink" });
    await rest("POST", `/environments/${tenant.environmentId}/custom/fields`, { name: "nickname", label: "Nickname" });
    await rest("POST", `/organizations/${tenant.organizationId}/customNetworks`, {
      name: "Compat Chain", chainId: 31337, rpcUrls: ["https://rpc.compat.example"], blockExplorerUrls: [], nativeCurrency: { name: "C", symbol: "C", decimals: 18 },
    });
    return api(SDKApi).getEnvironmentSettings({ environmentId: tenant.environmentId, sdkVersion: "4.0.0" });
  },
  "SDKApi.getHealthcheck": ({ api, tenant }) => api(SDKApi).getHealthcheck({ environmentId: tenant.environmentId }),
  "SDKApi.createVisit": ({ api, tenant }) =>
    api(SDKApi).createVisit({
      environmentId: tenant.environmentId,
      connectRequest: { address, chain: ChainEnum.Evm, provider: WalletProviderEnum.BrowserExtension, walletName: "metamask" },
    }),
  "SDKApi.prefetch": ({ api, tenant }) =>
    api(SDKApi).prefetch({ environmentId: tenant.environmentId, prefetchRequest: { chain: ChainEnum.Evm, publicWalletAddress: address } }),
  // The client's name for the spec's logServiceSdkSettings.
  "SDKApi.logDynamicSdkSettings": ({ api, tenant }) =>
    api(SDKApi).logDynamicSdkSettings({ environmentId: tenant.environmentId, sdkSettingsRequest: { frameworkSettings: { react: { version: "18.2.0" } } } }),
  "SDKApi.getEmailProvider": ({ api, tenant }) => api(SDKApi).getEmailProvider({ environmentId: tenant.environmentId, email: "someone@example.com" }),
  "SDKApi.getGlobalWalletsSettings": async ({ api, rest, tenant }) => {
    await rest("POST", `/environments/${tenant.environmentId}/globalWallet/settings`, { walletName: "Compat Wallet" });
    return api(SDKApi).getGlobalWalletsSettings({ environmentId: tenant.environmentId });
  },
  "SDKApi.scanUrl": async ({ api, rest, tenant }) => {
    await rest("POST", `/environments/${tenant.environmentId}/origins`, { origin: "https://app.compat.example" });
    return api(SDKApi).scanUrl({ environmentId: tenant.environmentId, scanWebsiteUrlRequest: { url: "https://app.compat.example/login" } });
  },
  "SDKApi.getNetworksConfigurationByEnvId": ({ api, tenant }) => api(SDKApi).getNetworksConfigurationByEnvId({ environmentId: tenant.environmentId }),
};
