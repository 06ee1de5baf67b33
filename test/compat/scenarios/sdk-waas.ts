import { randomUUID } from "node:crypto";
import { SDKApi } from "@dynamic-labs/sdk-api";
import { generatePrivateKey } from "viem/accounts";
import { call } from "../../support/http.js";
import { signInAs } from "../../support/sessions.js";
import { TestDevice, type RoomView } from "../../support/waas-device.js";
import type { Scenarios } from "../harness.js";

/**
 * SDKApi, the end user's threshold wallets (run in this order): a user creates an EVM wallet, signs, reserves
 * rooms, refreshes, reshares, exports and imports a key. Each operation answers an OpenRoomResponse; the device's
 * part goes through Sigil's room relay (not a client operation), so that every later operation finds the wallet
 * in the state it expects.
 */
async function relay(app: { baseUrl: string }, environmentId: string, jwt: string, roomId: string, contribution?: Record<string, unknown>): Promise<RoomView> {
  const r = contribution
    ? await call(app.baseUrl, "POST", `/sdk/${environmentId}/waas/rooms/${roomId}/contribution`, { token: jwt, body: { contribution } })
    : await call(app.baseUrl, "GET", `/sdk/${environmentId}/waas/rooms/${roomId}`, { token: jwt });
  if (r.status !== 200) throw new Error(`room ${roomId}: ${r.status} ${r.text}`);
  return r.body as RoomView;
}

export const sdkWaasApi: Scenarios = {
  "SDKApi.createWaasAccount": async ({ api, app, tenant, state }) => {
    state.jwt = (await signInAs(app, tenant.environmentId, `compat-waas-${randomUUID()}@example.com`)).jwt;
    state.device = new TestDevice("1234");
    const opened = await api(SDKApi, state.jwt).createWaasAccount({
      environmentId: tenant.environmentId,
      createWaasAccountRequest: { chain: "EVM" as never, clientKeygenIds: state.device.keygenIds(1), thresholdSignatureScheme: "TWO_OF_TWO" as never },
    });
    state.walletId = opened.walletId;
    await state.device.receive((await relay(app, tenant.environmentId, state.jwt, opened.roomId)).result!.shareSet);
    return opened;
  },
  "SDKApi.signMessage": async ({ api, app, tenant, state }) => {
    const opened = await api(SDKApi, state.jwt).signMessage({ environmentId: tenant.environmentId, walletId: state.walletId, signMessageWithWaasRequest: { message: "compat" } });
    const room = await relay(app, tenant.environmentId, state.jwt, opened.roomId);
    await relay(app, tenant.environmentId, state.jwt, opened.roomId, await state.device.sharesContribution(room));
    return opened;
  },
  "SDKApi.createRooms": ({ api, tenant, state }) =>
    api(SDKApi, state.jwt).createRooms({ environmentId: tenant.environmentId, walletId: state.walletId, createRoomsRequest: { roomType: "threshold" as never, roomCount: 1 } }),
  "SDKApi.createRoomsWithoutWalletId": ({ api, tenant, state }) =>
    api(SDKApi, state.jwt).createRoomsWithoutWalletId({
      environmentId: tenant.environmentId,
      createRoomsWithoutWalletIdRequest: { roomType: "threshold" as never, thresholdSignatureScheme: "TWO_OF_TWO" as never },
    }),
  "SDKApi.refreshKeyShares": async ({ api, app, tenant, state }) => {
    const opened = await api(SDKApi, state.jwt).refreshKeyShares({ environmentId: tenant.environmentId, walletId: state.walletId });
    const room = await relay(app, tenant.environmentId, state.jwt, opened.roomId);
    const done = await relay(app, tenant.environmentId, state.jwt, opened.roomId, await state.device.sharesContribution(room));
    await state.device.receive(done.result!.shareSet);
    return opened;
  },
  "SDKApi.reshare": async ({ api, app, tenant, state }) => {
    const next = new TestDevice("1234");
    const opened = await api(SDKApi, state.jwt).reshare({
      environmentId: tenant.environmentId,
      walletId: state.walletId,
      reshareRequest: { clientKeygenIds: next.keygenIds(2), oldThresholdSignatureScheme: "TWO_OF_TWO" as never, newThresholdSignatureScheme: "TWO_OF_THREE" as never },
    });
    const room = await relay(app, tenant.environmentId, state.jwt, opened.roomId);
    const done = await relay(app, tenant.environmentId, state.jwt, opened.roomId, await state.device.sharesContribution(room));
    await next.receive(done.result!.shareSet);
    state.device = next;
    return opened;
  },
  "SDKApi.exportPrivateKey": async ({ api, app, tenant, state }) => {
    const opened = await api(SDKApi, state.jwt).exportPrivateKey({ environmentId: tenant.environmentId, walletId: state.walletId, exportWaasWalletPrivateKeyRequest: { exportId: randomUUID() } });
    const room = await relay(app, tenant.environmentId, state.jwt, opened.roomId);
    const oneTime = TestDevice.exportKey();
    const done = await relay(app, tenant.environmentId, state.jwt, opened.roomId, { ...(await state.device.sharesContribution(room, [2])), exportKey: oneTime.publicJwk });
    await oneTime.open(done.result!.encryptedKey);
    return opened;
  },
  "SDKApi.importPrivateKey": async ({ api, app, tenant, state }) => {
    const device = new TestDevice("1234");
    const opened = await api(SDKApi, state.jwt).importPrivateKey({
      environmentId: tenant.environmentId,
      importWaasPrivateKeyRequest: { chain: "EVM" as never, clientKeygenIds: device.keygenIds(1), thresholdSignatureScheme: "TWO_OF_TWO" as never },
    });
    const room = await relay(app, tenant.environmentId, state.jwt, opened.roomId);
    await relay(app, tenant.environmentId, state.jwt, opened.roomId, await TestDevice.importContribution(room, generatePrivateKey()));
    return opened;
  },
  // The browser preflights (OPTIONS) the client declares on these paths: 204 with the path's Allow header.
  "SDKApi.createWaasAccountOptions": ({ api, tenant }) => api(SDKApi).createWaasAccountOptions({ environmentId: tenant.environmentId }),
  "SDKApi.importPrivateKeyOptions": ({ api, tenant }) => api(SDKApi).importPrivateKeyOptions({ environmentId: tenant.environmentId }),
  "SDKApi.signMessageOptions": ({ api, tenant, state }) => api(SDKApi).signMessageOptions({ environmentId: tenant.environmentId, walletId: state.walletId }),
  "SDKApi.refreshKeySharesOptions": ({ api, tenant, state }) => api(SDKApi).refreshKeySharesOptions({ environmentId: tenant.environmentId, walletId: state.walletId }),
  "SDKApi.reshareOptions": ({ api, tenant, state }) => api(SDKApi).reshareOptions({ environmentId: tenant.environmentId, walletId: state.walletId }),
  "SDKApi.exportPrivateKeyOptions": ({ api, tenant, state }) => api(SDKApi).exportPrivateKeyOptions({ environmentId: tenant.environmentId, walletId: state.walletId }),
  "SDKApi.createRoomsOptions": ({ api, tenant, state }) => api(SDKApi).createRoomsOptions({ environmentId: tenant.environmentId, walletId: state.walletId }),
  "SDKApi.createRoomsWithoutWalletIdOptions": ({ api, tenant }) => api(SDKApi).createRoomsWithoutWalletIdOptions({ environmentId: tenant.environmentId }),
};
