import { afterAll, beforeAll } from "vitest";
import { DEFAULT_CHAIN_SETTINGS, type ChainSettings } from "../../src/config-chains.js";
import { startEvmChain } from "../e2e/support/evm-chain.js";
import { runCompat } from "./runner.js";
import { sdkEvmSimulationApi, simulationChain } from "./scenarios/sdk-evm-simulation.js";

// The operator default is filled in once the chain is up: this hook runs before the runner's, which starts
// the app with this (shared) settings object.
const chains: ChainSettings = { ...DEFAULT_CHAIN_SETTINGS, evmRpcUrls: {} };
beforeAll(async () => {
  simulationChain.evm = await startEvmChain();
  chains.evmRpcUrls[31337] = simulationChain.evm.rpcUrl;
}, 60_000);
afterAll(async () => {
  await simulationChain.evm?.close();
});

runCompat("EVM transaction and user operation simulation", sdkEvmSimulationApi, { chains });
