import { ChainEnum, SDKApi } from "@dynamic-labs/sdk-api";
import { generateKeyPairSigner } from "@solana/kit";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import type { EvmChain } from "../../e2e/support/evm-chain.js";
import type { SolanaChain } from "../../e2e/support/solana-chain.js";
import type { Scenarios } from "../harness.js";

/** The local chains the compat app's operator defaults point at (started by test/compat/sdk-balances.test.ts). */
export const compatChains: { evm?: EvmChain; sol?: SolanaChain } = {};

/** SDKApi: balances read from real local nodes (EVM 31337, Solana devnet 103), after real transfers. */
export const sdkBalancesApi: Scenarios = {
  "SDKApi.getAccountBalances": async ({ api, tenant }) => {
    const holder = privateKeyToAddress(generatePrivateKey());
    await compatChains.evm!.transferNative(holder, 10n ** 18n);
    await compatChains.evm!.mintErc20(holder, 5n * 10n ** 18n);
    return api(SDKApi).getAccountBalances({
      environmentId: tenant.environmentId, chainName: ChainEnum.Evm, accountAddress: holder, networkId: 31337, whitelistedContracts: [compatChains.evm!.contracts.erc20],
    });
  },
  "SDKApi.postMultichainAccountBalances": async ({ api, tenant }) => {
    const owner = (await generateKeyPairSigner()).address;
    await compatChains.sol!.airdrop(owner, 1_000_000_000n);
    return api(SDKApi).postMultichainAccountBalances({
      environmentId: tenant.environmentId,
      multichainAccountBalancesRequest: { balanceRequests: [{ address: owner, chain: ChainEnum.Sol, networkIds: [103] }] },
    });
  },
  // The browser preflights (OPTIONS) the client declares on the balances paths.
  "SDKApi.getAccountBalancesOptions": ({ api, tenant }) =>
    api(SDKApi).getAccountBalancesOptions({ environmentId: tenant.environmentId, chainName: ChainEnum.Evm, networkId: 31337, accountAddress: privateKeyToAddress(generatePrivateKey()) }),
  "SDKApi.postMultichainAccountBalancesOptions": ({ api, tenant }) =>
    api(SDKApi).postMultichainAccountBalancesOptions({ environmentId: tenant.environmentId, multichainAccountBalancesRequest: { balanceRequests: [] } }),
};
