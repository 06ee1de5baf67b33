import { ChainEnum, EmbeddedWalletChainEnum, UserIdentifierTypeEnum, WalletProviderEnum, WalletsApi } from "@dynamic-labs/sdk-api";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import type { Scenarios } from "../harness.js";

const evmAddress = () => privateKeyToAddress(generatePrivateKey());
const uniqueEmail = () => `wallets-${Date.now()}-${Math.random().toString(16).slice(2)}@example.com`;
const linkRequest = (walletName: string) => ({
  publicWalletAddress: evmAddress(),
  chain: ChainEnum.Evm,
  walletName,
  walletProvider: WalletProviderEnum.BrowserExtension,
});

/** WalletsApi: one scenario per operation, keyed `WalletsApi.<operation>`, run in this order. */
export const walletsApi: Scenarios = {
  "WalletsApi.createWallet": async ({ api, tenant, rest, state }) => {
    const { user } = await rest("POST", `/environments/${tenant.environmentId}/users`, { email: uniqueEmail() });
    state.userId = user.id;
    const wallet = await api(WalletsApi).createWallet({
      environmentId: tenant.environmentId,
      userId: user.id,
      createWalletRequest: linkRequest("metamask"),
    });
    state.walletId = wallet.id;
  },
  "WalletsApi.createWalletLegacy": async ({ api, state }) => {
    const wallet = await api(WalletsApi).createWalletLegacy({ userId: state.userId, createWalletRequest: linkRequest("rabby") });
    state.legacyWalletId = wallet.id;
  },
  "WalletsApi.getWalletsByUserId": ({ api, tenant, state }) =>
    api(WalletsApi).getWalletsByUserId({ environmentId: tenant.environmentId, userId: state.userId }),
  "WalletsApi.getWalletsByUserIdLegacy": ({ api, state }) => api(WalletsApi).getWalletsByUserIdLegacy({ userId: state.userId }),
  "WalletsApi.getWalletById": ({ api, tenant, state }) =>
    api(WalletsApi).getWalletById({ environmentId: tenant.environmentId, walletId: state.walletId }),
  "WalletsApi.getWalletByIdLegacy": ({ api, state }) => api(WalletsApi).getWalletByIdLegacy({ walletId: state.walletId }),
  "WalletsApi.getWalletsByEnvironmentId": ({ api, tenant }) =>
    api(WalletsApi).getWalletsByEnvironmentId({ environmentId: tenant.environmentId, limit: 10, offset: 0 }),
  "WalletsApi.createEmbeddedWallet": ({ api, tenant }) =>
    api(WalletsApi).createEmbeddedWallet({
      environmentId: tenant.environmentId,
      createUserEmbeddedWalletsRequest: {
        identifier: uniqueEmail(),
        type: UserIdentifierTypeEnum.Email,
        chains: [EmbeddedWalletChainEnum.Evm],
      },
    }),
  "WalletsApi.getActiveEmbeddedWalletVersionsForEnvironment": ({ api, tenant }) =>
    api(WalletsApi).getActiveEmbeddedWalletVersionsForEnvironment({ environmentId: tenant.environmentId }),
  "WalletsApi.deleteWalletById": ({ api, tenant, state }) =>
    api(WalletsApi).deleteWalletById({ environmentId: tenant.environmentId, walletId: state.walletId }),
  "WalletsApi.deleteWalletByIdLegacy": ({ api, state }) => api(WalletsApi).deleteWalletByIdLegacy({ walletId: state.legacyWalletId }),
  "WalletsApi.recoverDeletedWalletsWithEnvironment": ({ api, tenant, state }) =>
    api(WalletsApi).recoverDeletedWalletsWithEnvironment({
      environmentId: tenant.environmentId,
      walletRecoveryRequest: { userId: state.userId },
    }),
};
