import { afterAll, beforeAll } from "vitest";
import { DEFAULT_CHAIN_SETTINGS, type ChainSettings } from "../../src/config-chains.js";
import { startEvmChain } from "../e2e/support/evm-chain.js";
import { startSolanaChain } from "../e2e/support/solana-chain.js";
import { runCompat } from "./runner.js";
import { sdkChainTransactionsApi, transactionChains } from "./scenarios/sdk-chain-transactions.js";

// The operator defaults are filled in once the chains are up: this hook runs before the runner's, which
// starts the app with this (shared) settings object.
const chains: ChainSettings = { ...DEFAULT_CHAIN_SETTINGS, evmRpcUrls: {}, solanaRpcUrls: {} };
beforeAll(async () => {
  [transactionChains.evm, transactionChains.sol] = await Promise.all([startEvmChain(), startSolanaChain()]);
  chains.evmRpcUrls[31337] = transactionChains.evm.rpcUrl;
  chains.solanaRpcUrls[103] = transactionChains.sol.rpcUrl;
}, 60_000);
afterAll(async () => {
  await Promise.all([transactionChains.evm?.close(), transactionChains.sol?.close()]);
});

runCompat("Solana simulation and compute budget, an address's transactions", sdkChainTransactionsApi, { chains });
