import { generateKeyPairSync, randomUUID } from "node:crypto";
import { SDKApi } from "@dynamic-labs/sdk-api";
import { call } from "../../support/http.js";
import { signInAs } from "../../support/sessions.js";
import { TestDevice, type RoomView } from "../../support/waas-device.js";
import type { Scenarios } from "../harness.js";

/**
 * SDKApi, the end user's threshold-wallet backups (run in this order): a user with a new EVM wallet backs its
 * share up at the service, records other locations, recovers, gets a backup token, changes the wallet's
 * settings, delivers a delegated share and reads the wallet back by its address.
 */
export const sdkWaasBackupApi: Scenarios = {
  "SDKApi.backupKeyShares": async ({ api, app, tenant, state }) => {
    const user = await signInAs(app, tenant.environmentId, `compat-waas-backup-${randomUUID()}@example.com`);
    state.jwt = user.jwt;
    state.device = new TestDevice("1234");
    const opened = await api(SDKApi, state.jwt).createWaasAccount({
      environmentId: tenant.environmentId,
      createWaasAccountRequest: { chain: "EVM" as never, clientKeygenIds: state.device.keygenIds(1), thresholdSignatureScheme: "TWO_OF_TWO" as never },
    });
    const room = (await call(app.baseUrl, "GET", `/sdk/${tenant.environmentId}/waas/rooms/${opened.roomId}`, { token: state.jwt })).body as RoomView;
    await state.device.receive(room.result!.shareSet);
    state.walletId = opened.walletId;
    state.address = room.result!.address;
    return api(SDKApi, state.jwt).backupKeyShares({
      environmentId: tenant.environmentId,
      walletId: state.walletId,
      backupMultipleClientKeySharesRequest: { encryptedAccountCredentials: state.device.backupCredentials(), passwordEncrypted: true },
    });
  },
  "SDKApi.backupKeySharesToLocation": ({ api, tenant, state }) =>
    api(SDKApi, state.jwt).backupKeySharesToLocation({ environmentId: tenant.environmentId, walletId: state.walletId, backupKeySharesToLocationRequest: { location: "icloud" as never } }),
  "SDKApi.backupKeySharesToLocations": ({ api, tenant, state }) =>
    api(SDKApi, state.jwt).backupKeySharesToLocations({
      environmentId: tenant.environmentId,
      walletId: state.walletId,
      backupKeySharesToLocationsRequest: { locations: [{ location: "external" as never, externalKeyShareId: "customer-share-1" }] },
    }),
  "SDKApi.recoverKeyShares": ({ api, tenant, state }) =>
    api(SDKApi, state.jwt).recoverKeyShares({ environmentId: tenant.environmentId, walletId: state.walletId, recoverMultipleClientKeySharesRequest: {} }),
  "SDKApi.getBackupToken": ({ api, tenant, state }) => api(SDKApi, state.jwt).getBackupToken({ environmentId: tenant.environmentId }),
  "SDKApi.deliverDelegatedShare": async ({ api, app, tenant, state }) => {
    const pem = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ type: "spki", format: "pem" }).toString();
    const reg = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/waas/delegatedAccess/encryptionPublicKeys`, {
      token: tenant.token,
      body: { publicKey: pem, alg: "HYBRID-RSA-AES-256", type: "external" },
    });
    if (reg.status !== 201) throw new Error(`registering the delegated-access key: ${reg.status} ${reg.text}`);
    return api(SDKApi, state.jwt).deliverDelegatedShare({
      environmentId: tenant.environmentId,
      walletId: state.walletId,
      delegatedShareDeliveryRequest: { encryptedDelegatedShare: { alg: "HYBRID-RSA-AES-256", iv: "aXY", ct: "Y3Q", tag: "dGFn", ek: "ZWs", kid: reg.body.kid } },
    });
  },
  "SDKApi.updateWaasWalletSettings": ({ api, tenant, state }) =>
    api(SDKApi, state.jwt).updateWaasWalletSettings({ environmentId: tenant.environmentId, walletId: state.walletId, updateWaasWalletSettingsRequest: { hasDeniedDelegatedAccess: true } }),
  "SDKApi.getWaasWalletWithVerifiedCredentials": ({ api, tenant, state }) =>
    api(SDKApi, state.jwt).getWaasWalletWithVerifiedCredentials({ environmentId: tenant.environmentId, walletAddress: state.address }),
  // The browser preflights (OPTIONS) the client declares on these paths.
  "SDKApi.backupKeySharesOptions": ({ api, tenant, state }) => api(SDKApi).backupKeySharesOptions({ environmentId: tenant.environmentId, walletId: state.walletId }),
  "SDKApi.backupKeySharesToLocationOptions": ({ api, tenant, state }) =>
    api(SDKApi).backupKeySharesToLocationOptions({ environmentId: tenant.environmentId, walletId: state.walletId }),
  "SDKApi.backupKeySharesToLocationsOptions": ({ api, tenant, state }) =>
    api(SDKApi).backupKeySharesToLocationsOptions({ environmentId: tenant.environmentId, walletId: state.walletId }),
  "SDKApi.recoverKeySharesOptions": ({ api, tenant, state }) => api(SDKApi).recoverKeySharesOptions({ environmentId: tenant.environmentId, walletId: state.walletId }),
  "SDKApi.getBackupTokenOptions": ({ api, tenant }) => api(SDKApi).getBackupTokenOptions({ environmentId: tenant.environmentId }),
  "SDKApi.deliverDelegatedShareOptions": ({ api, tenant, state }) => api(SDKApi).deliverDelegatedShareOptions({ environmentId: tenant.environmentId, walletId: state.walletId }),
  "SDKApi.waasWalletSettingsOptions": ({ api, tenant, state }) => api(SDKApi).waasWalletSettingsOptions({ environmentId: tenant.environmentId, walletId: state.walletId }),
  "SDKApi.getWaasWalletWithVerifiedCredentialsOptions": ({ api, tenant, state }) =>
    api(SDKApi).getWaasWalletWithVerifiedCredentialsOptions({ environmentId: tenant.environmentId, walletAddress: state.address }),
};
