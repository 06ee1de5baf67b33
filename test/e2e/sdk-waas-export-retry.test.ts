import { randomUUID } from "node:crypto";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";
import { TestDevice, type RoomView } from "../support/waas-device.js";

/**
 * An export id is used once, by the export that happened: an export that failed (its room says why) frees its
 * id, so the device can export under the same id again; one that finished keeps it (409 export_exists).
 */

let app: TestApp;
let t: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: `waas-export-retry-${randomUUID()}@example.com` });
}, 60_000);
afterAll(async () => {
  await app?.stop();
});

/** A signed-in user with a new 2-of-2 EVM wallet whose device holds its share, and the room relay calls. */
async function userWithWallet() {
  const s = await signInAs(app, t.environmentId);
  const sdk = sdkFor(app.baseUrl, s.jwt);
  const room = async (roomId: string) => (await call(app.baseUrl, "GET", `/sdk/${t.environmentId}/waas/rooms/${roomId}`, { token: s.jwt })).body as RoomView;
  const contribute = (roomId: string, contribution: Record<string, unknown>) =>
    call(app.baseUrl, "POST", `/sdk/${t.environmentId}/waas/rooms/${roomId}/contribution`, { token: s.jwt, body: { contribution } });
  const device = new TestDevice("1234");
  const created = await sdk.createWaasAccount({
    environmentId: t.environmentId,
    createWaasAccountRequest: { chain: "EVM" as never, clientKeygenIds: device.keygenIds(1), thresholdSignatureScheme: "TWO_OF_TWO" as never },
  });
  const made = await room(created.roomId);
  await device.receive(made.result!.shareSet);
  return { sdk, room, contribute, device, made, walletId: created.walletId! };
}

it("frees the id of a failed export: the same id then exports once, and no more", async () => {
  const { sdk, room, contribute, device, made, walletId } = await userWithWallet();
  const exportId = `exp-${randomUUID()}`;
  const exportAgain = () => sdk.exportPrivateKey({ environmentId: t.environmentId, walletId, exportWaasWalletPrivateKeyRequest: { exportId } });

  // The first try fails: the contribution lacks the one-time key. The room says so.
  const first = await exportAgain();
  const failed = await contribute(first.roomId, await device.sharesContribution(await room(first.roomId)));
  expect(failed.status, failed.text).toBe(400);
  expect(failed.body.code).toBe("invalid_export_key");
  expect((await room(first.roomId)).status).toBe("failed");

  // The same id again: a new room, and this time the export happens.
  const second = await exportAgain();
  expect(second.roomId).not.toBe(first.roomId);
  const oneTime = TestDevice.exportKey();
  const done = await contribute(second.roomId, { ...(await device.sharesContribution(await room(second.roomId))), exportKey: oneTime.publicJwk });
  expect(done.status, done.text).toBe(200);
  const exported = await oneTime.open(done.body.result.encryptedKey);
  expect(privateKeyToAccount(`0x${exported.privateKey}`).address).toBe(made.result!.address);
  // The failed room stays readable as it was.
  expect((await room(first.roomId)).error?.code).toBe("invalid_export_key");

  // An export that happened keeps its id.
  const third = await refused(exportAgain());
  expect(third.status).toBe(409);
  expect(third.body.code).toBe("export_exists");
  const exports = await app.db.one("SELECT count(*)::int AS n FROM events WHERE environment_id = $1 AND resource_id = $2 AND event_name = 'wallet.exported'", [t.environmentId, walletId]);
  expect(exports.n).toBe(1);
});

it("answers a retried post of a finished room's contribution with its outcome; another part is still refused", async () => {
  // A device whose post got no answer (a 503, a cut connection) posts it again; the room may have finished
  // meanwhile (the worker's reconciler runs rooms left waiting): the same post answers what the room became.
  const { sdk, room, contribute, device, walletId } = await userWithWallet();

  const refresh = await sdk.refreshKeyShares({ environmentId: t.environmentId, walletId });
  const part = await device.sharesContribution(await room(refresh.roomId));
  const first = await contribute(refresh.roomId, part);
  expect(first.status, first.text).toBe(200);
  const again = await contribute(refresh.roomId, part);
  expect(again.status, again.text).toBe(200);
  expect(again.body.status).toBe("done");
  expect(again.body.result).toEqual(first.body.result);
  // One refresh happened: the wallet is at epoch 2, not 3.
  expect(again.body.result.shareSet.epoch ?? again.body.result.epoch).toBe(2);
  const other = await contribute(refresh.roomId, { ...part, extra: "x" });
  expect(other.status, other.text).toBe(409);
  expect(other.body.code).toBe("room_closed");

  // A failed room answers its failure again.
  const exp = await sdk.exportPrivateKey({ environmentId: t.environmentId, walletId, exportWaasWalletPrivateKeyRequest: { exportId: `exp-${randomUUID()}` } });
  const noKey = await device.sharesContribution(await room(exp.roomId));
  expect((await contribute(exp.roomId, noKey)).body.code).toBe("invalid_export_key");
  const retried = await contribute(exp.roomId, noKey);
  expect(retried.status, retried.text).toBe(400);
  expect(retried.body.code).toBe("invalid_export_key");
});
