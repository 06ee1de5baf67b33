import { ChainEnum, CustomNetworksApi, type CustomNetworkRequest } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

const network = (name: string): CustomNetworkRequest => ({
  networkType: ChainEnum.Evm,
  chainName: name,
  chainId: "31337",
  rpcUrl: "http://127.0.0.1:8545",
  blockExplorerUrl: "https://explorer.example.com",
  iconUrl: "https://example.com/icon.png",
  nativeCurrencyName: "Ether",
  nativeCurrencySymbol: "ETH",
  nativeCurrencyIconUrl: "https://example.com/eth.png",
  nativeCurrencyDecimals: 18,
});

/** CustomNetworksApi: one scenario per operation, keyed `CustomNetworksApi.<operation>`, run in this order. */
export const customNetworksApi: Scenarios = {
  "CustomNetworksApi.createCustomNetwork": async ({ memberApi, tenant, state }) => {
    const res = await memberApi(CustomNetworksApi).createCustomNetwork({
      organizationId: tenant.organizationId,
      customNetworkRequest: network("Local chain"),
    });
    state.networkId = res.customNetwork?.id;
  },
  "CustomNetworksApi.getCustomNetworks": ({ memberApi, tenant }) =>
    memberApi(CustomNetworksApi).getCustomNetworks({ organizationId: tenant.organizationId }),
  "CustomNetworksApi.getCustomNetwork": ({ memberApi, tenant, state }) =>
    memberApi(CustomNetworksApi).getCustomNetwork({ organizationId: tenant.organizationId, networkId: state.networkId }),
  "CustomNetworksApi.updateCustomNetwork": ({ memberApi, tenant, state }) =>
    memberApi(CustomNetworksApi).updateCustomNetwork({
      organizationId: tenant.organizationId,
      networkId: state.networkId,
      customNetworkRequest: network("Local chain 2"),
    }),
  "CustomNetworksApi.deleteCustomNetwork": ({ memberApi, tenant, state }) =>
    memberApi(CustomNetworksApi).deleteCustomNetwork({ organizationId: tenant.organizationId, networkId: state.networkId }),
};
