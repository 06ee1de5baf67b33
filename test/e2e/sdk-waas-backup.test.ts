import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { SignJWT } from "jose";
import { recoverMessageAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { currentSet, setShares } from "../../src/db/repositories/waas-share-sets.js";
import { serverShareAad } from "../../src/domain/waas/threshold/share-sets.js";
import { verifyShare, type ShareSetPublic } from "../../src/crypto/threshold/shares.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkWaasBackupService } from "../../src/gen/sigil/waas/v0/sdk_waas_backup_service_pb.js";
import { CloudDrivePeer } from "../adapters/support/cloud-drive-peer.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";
import { TestDevice, type RoomView } from "../support/waas-device.js";

// The WaaS backup operations through the published client (and one over gRPC), against the real Postgres,
// Redis and Temporal (the wallet actor runs backup and recover), with a cloud drive peer on loopback.

let app: TestApp;
let drive: CloudDrivePeer;
let t: BootstrapResult;
let other: BootstrapResult;

beforeAll(async () => {
  drive = await CloudDrivePeer.start();
  app = await startTestApp({ backups: { sealingKeys: [{ id: "backup-e2e", key: randomBytes(32) }], cloudDriveUrl: drive.url } });
  t = await app.bootstrap();
  other = await app.bootstrap();
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await drive?.stop();
});

interface Wallet {
  env: string;
  jwt: string;
  userId: string;
  walletId: string;
  address: string;
  device: TestDevice;
}

/**
 * A signed-in user with a new TWO_OF_TWO EVM wallet, made through the published client's createWaasAccount
 * (the room protocol of src/domain/waas/threshold/rooms.ts); the device keeps its share passcode-sealed. The one
 * place that knows how a wallet is made, should that change.
 */
async function newWallet(env = t.environmentId): Promise<Wallet> {
  const user = await signInAs(app, env);
  const device = new TestDevice("1234-passcode");
  const created = await sdkFor(app.baseUrl, user.jwt).createWaasAccount({
    environmentId: env,
    createWaasAccountRequest: { chain: "EVM" as never, clientKeygenIds: device.keygenIds(1), thresholdSignatureScheme: "TWO_OF_TWO" as never },
  });
  const room = (await call(app.baseUrl, "GET", `/sdk/${env}/waas/rooms/${created.roomId}`, { token: user.jwt })).body as RoomView;
  expect(room.status, JSON.stringify(room)).toBe("done");
  await device.receive(room.result!.shareSet);
  return { env, jwt: user.jwt, userId: user.userId, walletId: created.walletId!, address: room.result!.address, device };
}

const sdk = (w: Wallet) => sdkFor(app.baseUrl, w.jwt);
const backup = (w: Wallet, credentials = w.device.backupCredentials()) =>
  sdk(w).backupKeyShares({ environmentId: w.env, walletId: w.walletId, backupMultipleClientKeySharesRequest: { encryptedAccountCredentials: credentials, passwordEncrypted: true } });
const recover = (w: Wallet, keyShareIds?: string[]) =>
  sdk(w).recoverKeyShares({ environmentId: w.env, walletId: w.walletId, recoverMultipleClientKeySharesRequest: keyShareIds ? { keyShareIds } : {} });

/** Signs an EIP-191 message through a signing room: the device contributes its share; the finished room. */
async function signs(w: Wallet, message: string): Promise<RoomView> {
  const opened = await sdk(w).signMessage({ environmentId: w.env, walletId: w.walletId, signMessageWithWaasRequest: { message } });
  const room = (await call(app.baseUrl, "GET", `/sdk/${w.env}/waas/rooms/${opened.roomId}`, { token: w.jwt })).body as RoomView;
  const done = await call(app.baseUrl, "POST", `/sdk/${w.env}/waas/rooms/${opened.roomId}/contribution`, { token: w.jwt, body: { contribution: await w.device.sharesContribution(room) } });
  if (done.status === 200) return done.body as RoomView;
  return (await call(app.baseUrl, "GET", `/sdk/${w.env}/waas/rooms/${opened.roomId}`, { token: w.jwt })).body as RoomView;
}

async function serverShare(w: Wallet): Promise<{ setId: string; value: string | null; pub: ShareSetPublic }> {
  const set = (await currentSet(app.db, w.env, w.walletId))!;
  const row = (await setShares(app.db, w.env, set.id)).find((s) => s.holderIndex === 1);
  const value = row?.shareSealed ? app.deps.sealer.open(row.shareSealed, serverShareAad(set.id, 1)) : null;
  return { setId: set.id, value, pub: { curve: set.curve as ShareSetPublic["curve"], threshold: set.threshold, holders: set.holders, commitments: set.commitments } };
}

describe("backupKeyShares and recoverKeyShares (the service's vault)", () => {
  it("backs the device's credentials up with the server's share, and recovers them for the device", async () => {
    const w = await newWallet();
    const credentials = w.device.backupCredentials();
    const backedUp = await backup(w, credentials);
    expect(backedUp.keyShares).toHaveLength(1);
    expect(backedUp.keyShares[0]).toMatchObject({ backupLocation: "dynamic", passwordEncrypted: true });

    const rows = await app.db.any("SELECT holder, location, share_sealed FROM waas_share_backups WHERE wallet_id = $1 ORDER BY holder", [w.walletId]);
    expect(rows.map((r) => [r.holder, r.location])).toEqual([
      [1, "service"],
      [2, "service"],
    ]);
    // Sealed: neither the server's share nor the device's credential is readable in the row.
    const { value } = await serverShare(w);
    expect(rows[0].share_sealed).not.toContain(value);
    expect(rows[1].share_sealed).not.toContain(credentials[0]);

    const recovered = await recover(w);
    expect(recovered.keyShares).toEqual([
      { id: backedUp.keyShares[0]!.id, backupLocation: "dynamic", passwordEncrypted: true, encryptedAccountCredential: credentials[0] },
    ]);
    // The device opens what it backed up with its passcode, and the share verifies against the set.
    const s = await serverShare(w);
    const fresh = new TestDevice("1234-passcode");
    fresh.restore([recovered.keyShares[0]!.encryptedAccountCredential!], { shareSetId: s.setId, set: s.pub });
    expect(fresh.holderIndexes()).toEqual([2]);
    // Only the named backup ids.
    expect((await recover(w, [backedUp.keyShares[0]!.id])).keyShares).toHaveLength(1);
    expect((await refused(recover(w, [randomUUID()]))).status).toBe(404);
  });

  it("a newer backup of the same epoch replaces the older (a passcode change)", async () => {
    const w = await newWallet();
    await backup(w, ["old-credential"]);
    const second = await backup(w, ["new-credential"]);
    const recovered = await recover(w);
    expect(recovered.keyShares.map((k) => [k.id, k.encryptedAccountCredential])).toEqual([[second.keyShares[0]!.id, "new-credential"]]);
  });

  it("restores a deleted server share from the vault, checked against the set's commitments", async () => {
    const w = await newWallet();
    await backup(w);
    const before = await serverShare(w);
    await app.db.none("DELETE FROM waas_share_set_shares WHERE share_set_id = $1 AND holder_index = 1", [before.setId]);
    // Without its share the wallet cannot sign.
    const lost = await signs(w, "while lost");
    expect(lost.error).toMatchObject({ code: "server_share_missing" });
    await recover(w);
    const after = await serverShare(w);
    expect(after.value).toBe(before.value);
    expect(verifyShare(after.pub, { index: 1, value: after.value! })).toBe(true);
    // And with it back, the wallet signs again (the lead's signing room, through the published client).
    const signed = await signs(w, "after recovery");
    expect(signed.status, JSON.stringify(signed)).toBe("done");
    expect(await recoverMessageAddress({ message: "after recovery", signature: signed.result!.signature })).toBe(w.address);
  });

  it("two concurrent recoveries are serialised: both answer, the share is restored once", async () => {
    const w = await newWallet();
    await backup(w);
    const { setId, value } = await serverShare(w);
    await app.db.none("UPDATE waas_share_set_shares SET share_sealed = NULL, destroyed_at = now() WHERE share_set_id = $1 AND holder_index = 1", [setId]);
    const [a, b] = await Promise.all([recover(w), recover(w)]);
    expect(a.keyShares).toEqual(b.keyShares);
    expect((await serverShare(w)).value).toBe(value);
    const audits = await app.db.any(
      "SELECT changes FROM audit_log WHERE resource_id = $1 AND action = 'waas_wallet.key_shares_recovered' ORDER BY created_at",
      [w.walletId],
    );
    expect(audits.map((r) => r.changes.after.serverShareRestored).sort()).toEqual([false, true]);
  });

  it("a tampered vault row is refused (422 backup_unreadable) and changes nothing", async () => {
    const w = await newWallet();
    await backup(w);
    const row = await app.db.one("SELECT id, share_sealed FROM waas_share_backups WHERE wallet_id = $1 AND holder = 2", [w.walletId]);
    const sealed = String(row.share_sealed);
    const flipped = sealed.slice(0, -3) + (sealed.at(-3) === "A" ? "B" : "A") + sealed.slice(-2);
    await app.db.none("UPDATE waas_share_backups SET share_sealed = $2 WHERE id = $1", [row.id, flipped]);
    const r = await refused(recover(w));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "backup_unreadable" });
    // Copied to another wallet's row, a sealed backup does not open either (its associated data).
    const w2 = await newWallet();
    await backup(w2);
    await app.db.none("UPDATE waas_share_backups SET share_sealed = $2 WHERE wallet_id = $1 AND holder = 2", [w2.walletId, sealed]);
    expect((await refused(recover(w2))).body).toMatchObject({ code: "backup_unreadable" });
  });

  it("recovering a wallet with no backup is a clear 404", async () => {
    const w = await newWallet();
    const r = await refused(recover(w));
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: "key_share_backup_not_found" });
  });

  it("another user's wallet, or another environment's, is 404 and stores nothing", async () => {
    const w = await newWallet();
    const stranger = await signInAs(app, t.environmentId);
    const asStranger = sdkFor(app.baseUrl, stranger.jwt);
    const body = { encryptedAccountCredentials: ["x"], passwordEncrypted: true };
    expect((await refused(asStranger.backupKeyShares({ environmentId: t.environmentId, walletId: w.walletId, backupMultipleClientKeySharesRequest: body }))).status).toBe(404);
    expect((await refused(asStranger.recoverKeyShares({ environmentId: t.environmentId, walletId: w.walletId, recoverMultipleClientKeySharesRequest: {} }))).status).toBe(404);
    const elsewhere = await signInAs(app, other.environmentId);
    const asElsewhere = sdkFor(app.baseUrl, elsewhere.jwt);
    expect((await refused(asElsewhere.backupKeyShares({ environmentId: other.environmentId, walletId: w.walletId, backupMultipleClientKeySharesRequest: body }))).status).toBe(404);
    // Another environment's session on this environment's path is not a session here.
    expect((await refused(asElsewhere.backupKeyShares({ environmentId: t.environmentId, walletId: w.walletId, backupMultipleClientKeySharesRequest: body }))).status).toBe(401);
    expect((await app.db.one("SELECT count(*)::int AS n FROM waas_share_backups WHERE wallet_id = $1", [w.walletId])).n).toBe(0);
  });

  it("refuses bad input with the error body and changes nothing", async () => {
    const w = await newWallet();
    const r = await refused(sdk(w).backupKeyShares({ environmentId: w.env, walletId: w.walletId, backupMultipleClientKeySharesRequest: { encryptedAccountCredentials: ["a", "b"], passwordEncrypted: true } }));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "too_many_key_shares" });
    const empty = await refused(sdk(w).backupKeyShares({ environmentId: w.env, walletId: w.walletId, backupMultipleClientKeySharesRequest: { encryptedAccountCredentials: [], passwordEncrypted: true } }));
    expect(empty.status).toBe(400);
    expect((await app.db.one("SELECT count(*)::int AS n FROM waas_share_backups WHERE wallet_id = $1", [w.walletId])).n).toBe(0);
  });
});

describe("backup tokens and the cloud drive", () => {
  const driveBackup = (w: Wallet, accessToken: string, backupToken: string) =>
    call(app.baseUrl, "POST", `/sdk/${w.env}/waas/${w.walletId}/keyShares/backup/cloudDrive`, {
      token: w.jwt,
      body: { encryptedAccountCredentials: w.device.backupCredentials(), passwordEncrypted: true, accessToken, backupToken },
    });

  it("uploads the credentials to the user's drive with a single-use backup token; recovery names the file", async () => {
    const w = await newWallet();
    const { token } = await sdk(w).getBackupToken({ environmentId: w.env });
    const accessToken = drive.issueToken();
    const res = await driveBackup(w, accessToken, token);
    expect(res.status, res.text).toBe(200);
    const files = drive.files(accessToken);
    expect(files).toHaveLength(1);
    expect(files[0]!.parents).toEqual(["appDataFolder"]);
    expect(JSON.parse(files[0]!.content.toString())).toEqual({ encryptedAccountCredential: w.device.backupCredentials()[0], passwordEncrypted: true });
    expect(res.body.keyShares).toEqual([{ id: expect.any(String), backupLocation: "googleDrive", passwordEncrypted: true, externalKeyShareId: files[0]!.id }]);
    // The server's share went to the vault all the same.
    expect((await app.db.one("SELECT count(*)::int AS n FROM waas_share_backups WHERE wallet_id = $1 AND holder = 1 AND location = 'service'", [w.walletId])).n).toBe(1);
    const recovered = await recover(w);
    expect(recovered.keyShares).toEqual([{ id: res.body.keyShares[0].id, backupLocation: "googleDrive", passwordEncrypted: false, externalKeyShareId: files[0]!.id }]);

    // Replayed: refused, nothing uploaded.
    const replay = await driveBackup(w, accessToken, token);
    expect(replay.status).toBe(401);
    expect(replay.body).toMatchObject({ code: "invalid_backup_token" });
    expect(drive.files(accessToken)).toHaveLength(1);

    // With the drive's access token and a fresh backup token, recovery reads the file back.
    const readToken = (await sdk(w).getBackupToken({ environmentId: w.env })).token;
    const fromDrive = await call(app.baseUrl, "POST", `/sdk/${w.env}/waas/${w.walletId}/keyShares/recover`, { token: w.jwt, body: { accessToken, backupToken: readToken } });
    expect(fromDrive.status, fromDrive.text).toBe(200);
    expect(fromDrive.body.keyShares).toEqual([
      { id: res.body.keyShares[0].id, backupLocation: "googleDrive", passwordEncrypted: true, externalKeyShareId: files[0]!.id, encryptedAccountCredential: w.device.backupCredentials()[0] },
    ]);
    // A drive token without a backup token, or with a spent one, is refused.
    expect((await call(app.baseUrl, "POST", `/sdk/${w.env}/waas/${w.walletId}/keyShares/recover`, { token: w.jwt, body: { accessToken } })).status).toBe(400);
    expect((await call(app.baseUrl, "POST", `/sdk/${w.env}/waas/${w.walletId}/keyShares/recover`, { token: w.jwt, body: { accessToken, backupToken: readToken } })).status).toBe(401);
  });

  it("refuses another user's token, a tampered one, a session JWT, and of two concurrent uses exactly one wins", async () => {
    const w = await newWallet();
    const someone = await newWallet();
    const theirs = (await sdk(someone).getBackupToken({ environmentId: someone.env })).token;
    expect((await driveBackup(w, drive.issueToken(), theirs)).body).toMatchObject({ code: "invalid_backup_token" });
    const mine = (await sdk(w).getBackupToken({ environmentId: w.env })).token;
    const tampered = mine.slice(0, -4) + (mine.at(-4) === "A" ? "B" : "A") + mine.slice(-3);
    expect((await driveBackup(w, drive.issueToken(), tampered)).status).toBe(401);
    expect((await driveBackup(w, drive.issueToken(), w.jwt)).status).toBe(401);
    const elsewhere = await newWallet(other.environmentId);
    const foreign = (await sdk(elsewhere).getBackupToken({ environmentId: elsewhere.env })).token;
    expect((await driveBackup(w, drive.issueToken(), foreign)).status).toBe(401);
    // Expired: a token of the right key and claims whose minute is over.
    const key = await app.deps.sessionKeys.signingKey(w.env);
    const past = Math.floor(Date.now() / 1000) - 120;
    const expired = await new SignJWT({ environment_id: w.env, scope: "waas:backup" })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "sigil-backup+jwt" })
      .setIssuer(`sigil/${w.env}`)
      .setAudience("sigil:waas-backup")
      .setSubject(w.userId)
      .setJti(randomUUID())
      .setIssuedAt(past)
      .setExpirationTime(past + 60)
      .sign(key.key);
    expect((await driveBackup(w, drive.issueToken(), expired)).body).toMatchObject({ code: "invalid_backup_token", error: "the backup token has expired" });
    const [a, b] = await Promise.all([driveBackup(w, drive.issueToken(), mine), driveBackup(w, drive.issueToken(), mine)]);
    expect([a.status, b.status].sort()).toEqual([200, 401]);
  });

  it("a drive refusing the access token is 422 backup_location_refused", async () => {
    const w = await newWallet();
    const { token } = await sdk(w).getBackupToken({ environmentId: w.env });
    const res = await driveBackup(w, "ya29.unknown", token);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: "backup_location_refused" });
  });
});

describe("backup locations, settings and delegated access", () => {
  it("backupKeySharesToLocation records an audited event and stores nothing", async () => {
    const w = await newWallet();
    const r = await sdk(w).backupKeySharesToLocation({ environmentId: w.env, walletId: w.walletId, backupKeySharesToLocationRequest: { location: "icloud" as never } });
    expect(r).toEqual({ message: expect.any(String), walletId: w.walletId, location: "icloud" });
    const event = await app.db.one("SELECT data FROM events WHERE resource_id = $1 AND event_name = 'waas_wallet.backed_up'", [w.walletId]);
    expect(event.data).toMatchObject({ location: "icloud", walletId: w.walletId });
    expect((await app.db.one("SELECT count(*)::int AS n FROM waas_share_backups WHERE wallet_id = $1", [w.walletId])).n).toBe(0);
    expect((await refused(sdk(w).backupKeySharesToLocation({ environmentId: w.env, walletId: w.walletId, backupKeySharesToLocationRequest: { location: "floppy" as never } }))).status).toBe(400);
  });

  it("backupKeySharesToLocations records each location with its key share id", async () => {
    const w = await newWallet();
    const locations = [{ location: "external" as never, externalKeyShareId: "cust-123" }, { location: "googleDrive" as never }];
    const r = await sdk(w).backupKeySharesToLocations({ environmentId: w.env, walletId: w.walletId, backupKeySharesToLocationsRequest: { locations } });
    expect(r.walletId).toBe(w.walletId);
    expect(r.locationsWithKeyShares.map((l) => [l.location, l.externalKeyShareId])).toEqual([
      ["external", "cust-123"],
      ["googleDrive", expect.any(String)],
    ]);
    const rows = await app.db.any("SELECT id, location, reference FROM waas_share_backups WHERE wallet_id = $1 ORDER BY location", [w.walletId]);
    expect(rows.map((x) => x.location)).toEqual(["cloud_drive", "external"]);
    expect(rows.find((x) => x.location === "external")!.id).toBe(r.locationsWithKeyShares[0]!.keyShareId);
    const missing = await refused(sdk(w).backupKeySharesToLocations({ environmentId: w.env, walletId: w.walletId, backupKeySharesToLocationsRequest: { locations: [{ location: "external" as never }] } }));
    expect(missing.status).toBe(400);
  });

  it("updateWaasWalletSettings, deliverDelegatedShare and the delegated-access key", async () => {
    const w = await newWallet();
    const api = sdk(w);
    // No key registered yet.
    expect((await refused(call(app.baseUrl, "GET", `/sdk/${w.env}/waas/delegatedAccess/encryptionPublicKey`, { token: w.jwt }).then((r) => (r.status < 300 ? r : Promise.reject(new Response(r.text, { status: r.status })))))).status).toBe(404);
    const pem = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ type: "spki", format: "pem" }).toString();
    const reg = await call(app.baseUrl, "POST", `/environments/${w.env}/waas/delegatedAccess/encryptionPublicKeys`, { token: t.token, body: { publicKey: pem, alg: "HYBRID-RSA-AES-256", type: "external" } });
    expect(reg.status, reg.text).toBe(201);
    const key = await call(app.baseUrl, "GET", `/sdk/${w.env}/waas/delegatedAccess/encryptionPublicKey`, { token: w.jwt });
    expect(key.body).toEqual({ kid: reg.body.kid, publicKey: pem, alg: "HYBRID-RSA-AES-256" });

    const envelope = { alg: "HYBRID-RSA-AES-256", iv: "aXY", ct: "Y3Q", tag: "dGFn", ek: "ZWs", kid: reg.body.kid };
    const delivered = await api.deliverDelegatedShare({ environmentId: w.env, walletId: w.walletId, delegatedShareDeliveryRequest: { encryptedDelegatedShare: envelope } });
    expect(delivered).toMatchObject({ delegatedShareDeliveryId: expect.any(String), status: "accepted" });
    const event = await app.db.one("SELECT data FROM events WHERE resource_id = $1 AND event_name = 'waas_wallet.delegated_share'", [w.walletId]);
    expect(event.data.encryptedDelegatedShare).toEqual(envelope);
    const audit = await app.db.one("SELECT changes FROM audit_log WHERE resource_id = $1 AND action = 'waas_wallet.delegated_share'", [w.walletId]);
    expect(JSON.stringify(audit.changes)).not.toContain("Y3Q");
    // A key the environment does not have.
    const unknown = await refused(api.deliverDelegatedShare({ environmentId: w.env, walletId: w.walletId, delegatedShareDeliveryRequest: { encryptedDelegatedShare: { ...envelope, kid: "nope" } } }));
    expect(unknown.body).toMatchObject({ code: "unknown_encryption_key" });

    // Recording the delegated location answers that delivery.
    const recorded = await api.backupKeySharesToLocations({ environmentId: w.env, walletId: w.walletId, backupKeySharesToLocationsRequest: { locations: [{ location: "delegated" as never }] } });
    expect(recorded.locationsWithKeyShares).toEqual([{ location: "delegated", keyShareId: expect.any(String), externalKeyShareId: delivered.delegatedShareDeliveryId }]);
    const before = await newWallet();
    const notYet = await refused(sdk(before).backupKeySharesToLocations({ environmentId: before.env, walletId: before.walletId, backupKeySharesToLocationsRequest: { locations: [{ location: "delegated" as never }] } }));
    expect(notYet.status).toBe(409);

    const settings = await api.updateWaasWalletSettings({ environmentId: w.env, walletId: w.walletId, updateWaasWalletSettingsRequest: { hasDeniedDelegatedAccess: true } });
    expect(settings).toEqual({ walletId: w.walletId, settings: { hasDeniedDelegatedAccess: true } });
    const denied = await refused(api.deliverDelegatedShare({ environmentId: w.env, walletId: w.walletId, delegatedShareDeliveryRequest: { encryptedDelegatedShare: envelope } }));
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: "delegated_access_denied" });
    const stranger = sdkFor(app.baseUrl, (await signInAs(app, w.env)).jwt);
    expect((await refused(stranger.updateWaasWalletSettings({ environmentId: w.env, walletId: w.walletId, updateWaasWalletSettingsRequest: { hasDeniedDelegatedAccess: false } }))).status).toBe(404);
  });

  it("getWaasWalletWithVerifiedCredentials answers the owner with only that wallet; anyone else 404", async () => {
    const w = await newWallet();
    const user = await sdk(w).getWaasWalletWithVerifiedCredentials({ environmentId: w.env, walletAddress: w.address });
    expect(user.id).toBe(w.userId);
    const wallets = (user.verifiedCredentials ?? []).filter((vc) => vc.format === "blockchain");
    expect(wallets.map((vc) => vc.address?.toLowerCase())).toEqual([w.address.toLowerCase()]);
    const stranger = sdkFor(app.baseUrl, (await signInAs(app, w.env)).jwt);
    expect((await refused(stranger.getWaasWalletWithVerifiedCredentials({ environmentId: w.env, walletAddress: w.address }))).status).toBe(404);
  });
});

describe("over gRPC", () => {
  it("backs up and recovers through the gRPC protocol", async () => {
    const w = await newWallet();
    const client = createClient(SdkWaasBackupService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const headers = { authorization: `Bearer ${w.jwt}` };
    const b = await client.backupKeyShares({ environmentId: w.env, walletId: w.walletId, encryptedAccountCredentials: ["grpc-credential"], passwordEncrypted: false }, { headers });
    expect(b.keyShares).toHaveLength(1);
    const r = await client.recoverKeyShares({ environmentId: w.env, walletId: w.walletId }, { headers });
    expect(r.keyShares[0]?.encryptedAccountCredential).toBe("grpc-credential");
    await expect(client.recoverKeyShares({ environmentId: w.env, walletId: randomUUID() }, { headers })).rejects.toMatchObject({ code: 5 });
  });
});
