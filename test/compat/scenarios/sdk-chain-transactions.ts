import { ChainEnum, SDKApi } from "@dynamic-labs/sdk-api";
import { type KeyPairSigner, generateKeyPairSigner } from "@solana/kit";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { signInAs } from "../../support/sessions.js";
import type { EvmChain } from "../../e2e/support/evm-chain.js";
import { type SolanaChain, transferLamportsInstruction } from "../../e2e/support/solana-chain.js";
import { signedWire } from "../../e2e/support/solana-wire.js";
import type { CompatContext, Scenarios } from "../harness.js";

/** The local chains the compat app's operator defaults point at (started by test/compat/sdk-chain-transactions.test.ts). */
export const transactionChains: { evm?: EvmChain; sol?: SolanaChain } = {};

const SOL = 1_000_000_000n;

/** A funded payer's signed transfer, as base64 wire bytes. */
async function transfer(): Promise<{ payer: KeyPairSigner; wire: string }> {
  const sol = transactionChains.sol!;
  const payer = await generateKeyPairSigner();
  await sol.airdrop(payer.address, 2n * SOL);
  return { payer, wire: await signedWire(sol.rpcUrl, payer, [transferLamportsInstruction(payer, (await generateKeyPairSigner()).address, SOL / 2n)]) };
}

/** The tenant's environment reads Solana devnet by default (optimizeTransaction names no cluster). */
const devnetByDefault = (ctx: CompatContext) =>
  ctx.rest("PUT", `/environments/${ctx.tenant.environmentId}`, { chains: [{ name: "SOL", enabled: true, networks: [{ networkId: 103, enabled: true }] }] });

/** SDKApi: Solana simulation and compute budget, and an address's transactions, from real local nodes. */
export const sdkChainTransactionsApi: Scenarios = {
  "SDKApi.simulateSVMTransaction": async ({ api, tenant }) => {
    const { payer, wire } = await transfer();
    return api(SDKApi).simulateSVMTransaction({
      environmentId: tenant.environmentId,
      simulateSVMTransactionRequest: { chain: "103", transactions: [wire], accountAddress: payer.address, method: "signAndSendTransaction" },
    });
  },
  "SDKApi.optimizeTransaction": async (ctx) => {
    await devnetByDefault(ctx);
    const { payer, wire } = await transfer();
    return ctx.api(SDKApi).optimizeTransaction({ environmentId: ctx.tenant.environmentId, solanaTransactionOptimizationRequest: { transaction: wire, address: payer.address } });
  },
  "SDKApi.getWalletTransactions": async (ctx) => {
    const holder = privateKeyToAddress(generatePrivateKey());
    await transactionChains.evm!.transferNative(holder, 10n ** 18n);
    await transactionChains.evm!.mintErc20(holder, 10n ** 18n);
    const { jwt } = await signInAs(ctx.app, ctx.tenant.environmentId);
    return ctx.api(SDKApi, jwt).getWalletTransactions({ environmentId: ctx.tenant.environmentId, chainName: ChainEnum.Evm, address: holder, networkId: 31337 });
  },
  // The browser preflights (OPTIONS) the client declares on these paths.
  "SDKApi.simulateSVMTransactionOptions": ({ api, tenant }) => api(SDKApi).simulateSVMTransactionOptions({ environmentId: tenant.environmentId }),
  "SDKApi.optimizeTransactionOptions": ({ api, tenant }) => api(SDKApi).optimizeTransactionOptions({ environmentId: tenant.environmentId }),
  "SDKApi.getWalletTransactionsOptions": ({ api, tenant }) =>
    api(SDKApi).getWalletTransactionsOptions({ environmentId: tenant.environmentId, chainName: ChainEnum.Evm, address: privateKeyToAddress(generatePrivateKey()), networkId: 31337 }),
};
