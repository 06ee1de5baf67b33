import { ChainEnum, SDKApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** SDKApi: one scenario per operation, keyed `SDKApi.<operation>`, run in this order. */
export const sDKApi: Scenarios = {
  "SDKApi.getExchangeRates": ({ api }) => api(SDKApi).getExchangeRates(),
  "SDKApi.getExchangeRatesOptions": ({ api }) => api(SDKApi).getExchangeRatesOptions(),
  "SDKApi.getUserAccountBalances": async ({ api, rest, tenant }) => {
    const address = "0x52908400098527886E0F7030069857D2E4169EE7";
    // A user with a linked wallet: the operation answers for the user's own wallets only.
    const { user } = await rest("POST", `/environments/${tenant.environmentId}/users`, { email: `balances-${Date.now()}@example.com` });
    await rest("POST", `/environments/${tenant.environmentId}/users/${user.id}/wallets`, { publicWalletAddress: address, chain: "EVM", walletName: "metamask", walletProvider: "browserExtension" });
    return api(SDKApi).getUserAccountBalances({
      environmentId: tenant.environmentId,
      userId: user.id,
      // The stored (checksummed) form and the lower-case one a client may hold both name the user's wallet.
      multichainAccountBalancesRequest: {
        balanceRequests: [
          { address, chain: ChainEnum.Evm, networkIds: [1] },
          { address: address.toLowerCase(), chain: ChainEnum.Eth, networkIds: [137] },
        ],
      },
    });
  },
};
