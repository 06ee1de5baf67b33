import { AccessOutcomeEnum, ChainEnum, GateRuleType, GatesApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

const usdc = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";

/** GatesApi: one scenario per operation, keyed `GatesApi.<operation>`, run in this order. */
export const gatesApi: Scenarios = {
  "GatesApi.createGate": async ({ api, tenant, state }) => {
    const gate = await api(GatesApi).createGate({
      environmentId: tenant.environmentId,
      gateCreateRequest: {
        name: "Holders",
        outcome: AccessOutcomeEnum.SiteAccess,
        rules: [
          { type: GateRuleType.Token, chain: ChainEnum.Evm, address: { networkId: 1, contractAddress: usdc }, filter: { amount: 5 } },
        ],
      },
    });
    state.gateId = gate.id;
  },
  "GatesApi.getEnvironmentGates": ({ api, tenant }) => api(GatesApi).getEnvironmentGates({ environmentId: tenant.environmentId }),
  "GatesApi.getGate": ({ api, tenant, state }) => api(GatesApi).getGate({ environmentId: tenant.environmentId, gateId: state.gateId }),
  "GatesApi.updateGate": ({ api, tenant, state }) =>
    api(GatesApi).updateGate({
      environmentId: tenant.environmentId,
      gateId: state.gateId,
      gateUpdateRequest: {
        name: "NFT holders",
        rules: [{ type: GateRuleType.Nft, address: { networkId: 137, contractAddress: usdc } }],
      },
    }),
  "GatesApi.enableGate": ({ api, tenant, state }) => api(GatesApi).enableGate({ environmentId: tenant.environmentId, gateId: state.gateId }),
  "GatesApi.disableGate": ({ api, tenant, state }) => api(GatesApi).disableGate({ environmentId: tenant.environmentId, gateId: state.gateId }),
  "GatesApi.deleteGate": ({ api, tenant, state }) => api(GatesApi).deleteGate({ environmentId: tenant.environmentId, gateId: state.gateId }),
};
