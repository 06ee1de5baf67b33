import { SDKApi } from "@dynamic-labs/sdk-api";
import { encodeFunctionData, erc20Abi } from "viem";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import type { EvmChain } from "../../e2e/support/evm-chain.js";
import type { Scenarios } from "../harness.js";

/** The local chain the compat app's operator default points at (started by test/compat/sdk-evm-simulation.test.ts). */
export const simulationChain: { evm?: EvmChain } = {};

const freshAddress = () => privateKeyToAddress(generatePrivateKey());

/** SDKApi: transactions and user operations simulated on a real local node (EVM 31337). */
export const sdkEvmSimulationApi: Scenarios = {
  "SDKApi.simulateEVMTransaction": async ({ api, tenant }) => {
    const evm = simulationChain.evm!;
    const holder = freshAddress();
    await evm.mintErc20(holder, 5n * 10n ** 18n);
    return api(SDKApi).simulateEVMTransaction({
      environmentId: tenant.environmentId,
      simulateEVMTransactionRequest: {
        chainId: "31337",
        from: holder,
        to: evm.contracts.erc20,
        data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [freshAddress(), 10n ** 18n] }),
        value: "0",
      },
    });
  },
  // An account that does not exist and carries no factory: the EntryPoint refuses it (AA20), answered 200 with the reason.
  "SDKApi.simulateUserOp": ({ api, tenant }) =>
    api(SDKApi).simulateUserOp({
      environmentId: tenant.environmentId,
      simulateUserOpRequest: {
        chainId: "31337",
        entryPoint: simulationChain.evm!.contracts.entryPoint,
        value: "0",
        operation: { sender: freshAddress(), nonce: "0x0", callData: "0x", callGasLimit: "0x10000", verificationGasLimit: "0x10000", preVerificationGas: "0x5000", maxFeePerGas: "0x0", maxPriorityFeePerGas: "0x0", signature: "0x" },
      },
    }),
  "SDKApi.simulateEVMTransactionOptions": ({ api, tenant }) => api(SDKApi).simulateEVMTransactionOptions({ environmentId: tenant.environmentId }),
  "SDKApi.simulateUserOpOptions": ({ api, tenant }) => api(SDKApi).simulateUserOpOptions({ environmentId: tenant.environmentId }),
};
