import { ChainEnum, ChainsApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** ChainsApi: one scenario per operation, keyed `ChainsApi.<operation>`, run in this order. */
export const chainsApi: Scenarios = {
  "ChainsApi.getAllTokensByChain": async ({ api }) => {
    const tokens = await api(ChainsApi).getAllTokensByChain({ chainName: ChainEnum.Evm, networkId: 1 });
    if (tokens.length === 0) throw new Error("no known tokens on EVM network 1");
  },
};
