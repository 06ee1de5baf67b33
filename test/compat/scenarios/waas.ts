import { generateKeyPairSync } from "node:crypto";
import {
  DelegatedAccessEncryptionPublicKeyAlgEnum,
  UserIdentifierTypeEnum,
  WaasApi,
  WaasBackupOptionsEnum,
  WaasChainEnum,
  WaasDelegatedAccessEncryptionPublicKeyType,
  WaasPolicyRuleType,
} from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

const uniqueEmail = () => `waas-${Date.now()}-${Math.random().toString(16).slice(2)}@example.com`;
const recipient = "0x000000000000000000000000000000000000dEaD";

/** WaasApi: one scenario per operation, keyed `WaasApi.<operation>`, run in this order. */
export const waasApi: Scenarios = {
  "WaasApi.createDelegatedCredentials": ({ api, tenant }) =>
    api(WaasApi).createDelegatedCredentials({
      environmentId: tenant.environmentId,
      waasDelegationCredentialsRequest: {
        publicKey: generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ type: "spki", format: "pem" }).toString(),
        alg: DelegatedAccessEncryptionPublicKeyAlgEnum.RsaOaep256,
        type: WaasDelegatedAccessEncryptionPublicKeyType.External,
      },
    }),
  "WaasApi.getDelegatedAccessEncryptionPublicKeys": async ({ api, tenant, state }) => {
    const res = await api(WaasApi).getDelegatedAccessEncryptionPublicKeys({ environmentId: tenant.environmentId });
    state.keyId = res.keys?.[0]?.id;
  },
  "WaasApi.getDelegatedAccessEncryptionPublicKeyById": ({ api, tenant, state }) =>
    api(WaasApi).getDelegatedAccessEncryptionPublicKeyById({ environmentId: tenant.environmentId, keyId: state.keyId }),
  "WaasApi.authenticateWaas": ({ api, tenant }) => api(WaasApi).authenticateWaas({ environmentId: tenant.environmentId }),
  "WaasApi.verifyApiKey": ({ api, tenant }) => api(WaasApi).verifyApiKey({ environmentId: tenant.environmentId }),
  "WaasApi.createWaasWallet": ({ api, tenant }) =>
    api(WaasApi).createWaasWallet({
      environmentId: tenant.environmentId,
      createUserWaasWalletsRequest: { identifier: uniqueEmail(), type: UserIdentifierTypeEnum.Email, chains: [WaasChainEnum.Evm] },
    }),
  "WaasApi.getWaasWalletByWalletId": async ({ api, tenant, rest, state }) => {
    // Setup: a WaaS wallet of a known user whose id the later scenarios use.
    const env = `/environments/${tenant.environmentId}`;
    const { user } = await rest("POST", `${env}/users`, { email: uniqueEmail() });
    const created = await rest("POST", `${env}/waas/create`, { identifier: user.id, type: "id", chains: ["EVM"] });
    state.waasUserId = user.id;
    state.waasWalletId = created.wallets[0].id;
    return api(WaasApi).getWaasWalletByWalletId({ environmentId: tenant.environmentId, walletId: state.waasWalletId });
  },
  "WaasApi.createWaasPolicy": async ({ api, tenant, state }) => {
    const policy = await api(WaasApi).createWaasPolicy({
      environmentId: tenant.environmentId,
      waasPolicyCreateRequest: {
        rulesToAdd: [
          { name: "no burns", ruleType: WaasPolicyRuleType.Deny, chain: WaasChainEnum.Evm, addresses: [recipient] },
          { name: "base only", ruleType: WaasPolicyRuleType.Allow, chain: WaasChainEnum.Evm, chainIds: [8453] },
        ],
      },
    });
    state.ruleId = policy.policyContent[0]?.ruleId;
    state.ruleIds = policy.policyContent.map((r) => r.ruleId);
  },
  "WaasApi.getWaasPolicy": ({ api, tenant }) => api(WaasApi).getWaasPolicy({ environmentId: tenant.environmentId }),
  "WaasApi.updateWaasPolicy": ({ api, tenant, state }) =>
    api(WaasApi).updateWaasPolicy({
      environmentId: tenant.environmentId,
      waasPolicyUpdateRequest: {
        rulesToUpdate: [
          { ruleId: state.ruleId, name: "still no burns", ruleType: WaasPolicyRuleType.Deny, chain: WaasChainEnum.Evm, addresses: [recipient], chainIds: [1, 8453] },
        ],
      },
    }),
  "WaasApi.deleteWaasPolicy": ({ api, tenant, state }) =>
    api(WaasApi).deleteWaasPolicy({ environmentId: tenant.environmentId, waasPolicyDeleteRequest: { ruleIdsToDelete: state.ruleIds } }),
  "WaasApi.delegatedSignMessage": ({ api, tenant, state }) =>
    api(WaasApi).delegatedSignMessage({
      environmentId: tenant.environmentId,
      walletId: state.waasWalletId,
      waasDelegateSignMessageRequest: { message: "hello" },
    }),
  "WaasApi.backupKeySharesToLocationsForPregen": ({ api, tenant, state }) =>
    api(WaasApi).backupKeySharesToLocationsForPregen({
      environmentId: tenant.environmentId,
      walletId: state.waasWalletId,
      backupKeySharesToLocationsWithUserIdRequest: {
        userId: state.waasUserId,
        // One location names its share's id, one does not: each answer must carry one.
        locations: [{ location: WaasBackupOptionsEnum.External, externalKeyShareId: "vault-share-1" }, { location: WaasBackupOptionsEnum.Dynamic }],
      },
    }),
  "WaasApi.revokeDelegatedAccess": ({ api, tenant, state }) =>
    api(WaasApi).revokeDelegatedAccess({ environmentId: tenant.environmentId, revokeDelegatedAccessRequest: { walletIds: [state.waasWalletId] } }),
  "WaasApi.deleteDelegatedAccess": ({ api, tenant, state }) =>
    api(WaasApi).deleteDelegatedAccess({ environmentId: tenant.environmentId, walletId: state.waasWalletId }),
};
