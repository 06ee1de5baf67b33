import { ChainEnum, NameServicesApi } from "@dynamic-labs/sdk-api";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Scenarios } from "../harness.js";

/** NameServicesApi: one scenario per operation, keyed `NameServicesApi.<operation>`, run in this order. */
export const nameServicesApi: Scenarios = {
  "NameServicesApi.fetchNameServiceSigningMessage": async ({ api, tenant, state }) => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const challenge = await api(NameServicesApi).fetchNameServiceSigningMessage({
      environmentId: tenant.environmentId,
      chainName: ChainEnum.Evm,
      nameServiceSigningMessageRequest: { address: owner.address, domain: "myapp.eth", uri: "https://app.example.com" },
    });
    state.owner = owner;
    state.signature = await owner.signMessage({ message: challenge.unsignedMessage });
  },
  "NameServicesApi.createNameService": ({ api, tenant, state }) =>
    api(NameServicesApi).createNameService({
      environmentId: tenant.environmentId,
      chainName: ChainEnum.Evm,
      nameServiceCreateRequest: { address: state.owner.address, domain: "myapp.eth", signature: state.signature },
    }),
  "NameServicesApi.getNameService": ({ api, tenant }) =>
    api(NameServicesApi).getNameService({ environmentId: tenant.environmentId, chainName: ChainEnum.Evm }),
  "NameServicesApi.enableNameService": ({ api, tenant }) =>
    api(NameServicesApi).enableNameService({ environmentId: tenant.environmentId, chainName: ChainEnum.Evm }),
  "NameServicesApi.disableNameService": ({ api, tenant }) =>
    api(NameServicesApi).disableNameService({ environmentId: tenant.environmentId, chainName: ChainEnum.Evm }),
  "NameServicesApi.deleteNameService": ({ api, tenant }) =>
    api(NameServicesApi).deleteNameService({ environmentId: tenant.environmentId, chainName: ChainEnum.Evm }),
};
