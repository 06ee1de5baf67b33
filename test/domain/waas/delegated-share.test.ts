import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_WEBHOOK_SETTINGS } from "../../../src/config.js";
import { openHybridRsaAes256, type HybridEnvelope } from "../../../src/crypto/envelopes.js";
import { keyIdFor } from "../../../src/crypto/rsa-public-key.js";
import { insertEncryptionKey } from "../../../src/db/repositories/encryption-keys.js";
import { endUserAccess } from "../../../src/domain/sessions/service.js";
import type { BootstrapResult } from "../../../src/domain/tenancy/bootstrap.js";
import { DELEGATED_SHARE_EVENT, recordDelegatedShare } from "../../../src/domain/waas/threshold/delegated-share.js";
import { newWebhookSecret, sealWebhookSecret } from "../../../src/domain/webhooks/secret.js";
import { DomainError } from "../../../src/errors.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { waitFor } from "../../support/poll.js";
import { Receiver } from "../../support/receiver.js";

// The delegated backup location: the share as a HYBRID-RSA-AES-256 envelope to the environment's
// delegated-access key, recorded as an event in the caller's transaction and delivered by webhook.
let app: TestApp;
let rx: Receiver;

beforeAll(async () => {
  app = await startTestApp({ webhooks: { ...DEFAULT_WEBHOOK_SETTINGS, dispatcherPollMs: 300 } });
  rx = await Receiver.start();
}, 60_000);
afterAll(async () => {
  await rx?.stop();
  await app?.stop();
});

function rsaKeys() {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { publicPem: publicKey.export({ type: "spki", format: "pem" }).toString(), privatePem: privateKey.export({ type: "pkcs8", format: "pem" }).toString() };
}

async function registerKey(environmentId: string, publicPem: string): Promise<string> {
  const kid = await keyIdFor(publicPem);
  await insertEncryptionKey(app.db, environmentId, { kid, publicKey: publicPem, alg: "HYBRID-RSA-AES-256", type: "external" });
  return kid;
}

async function wallet(environmentId: string): Promise<string> {
  const id = randomUUID();
  await app.db.none(`INSERT INTO waas_wallets (id, environment_id, chain, address, public_key) VALUES ($1, $2, 'SOL', $3, 'ab')`, [
    id,
    environmentId,
    randomBytes(32).toString("hex"),
  ]);
  return id;
}

async function addWebhook(environmentId: string, path: string, eventNames: string[]) {
  const id = randomUUID();
  const secret = newWebhookSecret();
  await app.db.none(`INSERT INTO webhooks (id, environment_id, url, event_names, secret_sealed, enabled_at) VALUES ($1, $2, $3, $4, $5, now())`, [
    id,
    environmentId,
    rx.url(path),
    eventNames,
    sealWebhookSecret(app.deps.sealer, id, secret),
  ]);
  return { id, secret };
}

const accessOf = (t: BootstrapResult, userId = randomUUID()) =>
  endUserAccess({ environmentId: t.environmentId, environmentName: "sandbox", projectId: t.projectId, organizationId: t.organizationId }, userId, "req-1");

describe("delegated share", () => {
  it("writes the event with the envelope in the caller's transaction, and a subscribed webhook receives it; the developer's private key opens it", async () => {
    const t = await app.bootstrap({ ownerEmail: `delegated-${randomUUID()}@example.com` });
    const { publicPem, privatePem } = rsaKeys();
    const kid = await registerKey(t.environmentId, publicPem);
    const hook = await addWebhook(t.environmentId, "/delegated", [DELEGATED_SHARE_EVENT]);
    const walletId = await wallet(t.environmentId);
    const share = randomBytes(64);
    const userId = randomUUID();

    const result = await app.db.tx((tx) => recordDelegatedShare(tx, accessOf(t), { walletId, shareSetEpoch: 2, holder: 3, share, userId }));
    expect(result.alreadyRecorded).toBe(false);

    const event = await app.db.one(`SELECT * FROM events WHERE environment_id = $1 AND event_name = $2`, [t.environmentId, DELEGATED_SHARE_EVENT]);
    expect(event).toMatchObject({ resource_type: "waas_wallet", resource_id: walletId, user_id: userId });
    expect(event.data).toMatchObject({ walletId, userId, shareSetEpoch: 2, holder: 3, deliveryId: result.deliveryId });
    expect(event.data.encryptedDelegatedShare).toEqual(result.envelope);
    expect(event.data.encryptedDelegatedShare).toMatchObject({ alg: "HYBRID-RSA-AES-256", kid });
    // The audit row records the fact, not the envelope.
    const audit = await app.db.one(`SELECT * FROM audit_log WHERE id = $1`, [event.audit_id]);
    expect(audit.changes.after).toEqual({ walletId, shareSetEpoch: 2, holder: 3, kid, deliveryId: result.deliveryId });
    expect(JSON.stringify(audit.changes)).not.toContain(result.envelope!.ct);
    expect(await app.db.one(`SELECT location, reference FROM waas_share_backups WHERE wallet_id = $1`, [walletId])).toEqual({ location: "delegated", reference: result.deliveryId });

    await waitFor("the delivery", () => rx.received("/delegated").length > 0);
    const [got] = rx.received("/delegated");
    const body = new Webhook(hook.secret).verify(got!.body, got!.headers) as { eventName: string; data: { encryptedDelegatedShare: HybridEnvelope } };
    expect(body.eventName).toBe(DELEGATED_SHARE_EVENT);
    // What the developer does with the envelope and their private key.
    expect(Buffer.from(openHybridRsaAes256(privatePem, body.data.encryptedDelegatedShare)).equals(share)).toBe(true);
  });

  it("uses the newest registered key", async () => {
    const t = await app.bootstrap({ ownerEmail: `delegated-${randomUUID()}@example.com` });
    const older = rsaKeys();
    await registerKey(t.environmentId, older.publicPem);
    // A later registration time, which is what makes the next key the newest.
    await new Promise((r) => setTimeout(r, 20));
    const newer = rsaKeys();
    const newestKid = await registerKey(t.environmentId, newer.publicPem);
    const walletId = await wallet(t.environmentId);
    const { envelope } = await app.db.tx((tx) => recordDelegatedShare(tx, accessOf(t), { walletId, shareSetEpoch: 1, holder: 2, share: Buffer.from("s"), userId: null }));
    expect(envelope!.kid).toBe(newestKid);
    expect(Buffer.from(openHybridRsaAes256(newer.privatePem, envelope!)).toString()).toBe("s");
    expect(() => openHybridRsaAes256(older.privatePem, envelope!)).toThrow();
  });

  it("a retried step emits nothing twice, and two concurrent ones emit exactly one event", async () => {
    const t = await app.bootstrap({ ownerEmail: `delegated-${randomUUID()}@example.com` });
    await registerKey(t.environmentId, rsaKeys().publicPem);
    const walletId = await wallet(t.environmentId);
    const input = { walletId, shareSetEpoch: 1, holder: 3, share: Buffer.from("s"), userId: null };
    const results = await Promise.all([1, 2, 3].map(() => app.db.tx((tx) => recordDelegatedShare(tx, accessOf(t), input))));
    expect(results.filter((r) => !r.alreadyRecorded)).toHaveLength(1);
    expect(new Set(results.map((r) => r.deliveryId)).size).toBe(1);
    const again = await app.db.tx((tx) => recordDelegatedShare(tx, accessOf(t), input));
    expect(again).toMatchObject({ alreadyRecorded: true, envelope: null, deliveryId: results[0]!.deliveryId });
    const { n } = await app.db.one(`SELECT count(*)::int AS n FROM events WHERE environment_id = $1 AND event_name = $2`, [t.environmentId, DELEGATED_SHARE_EVENT]);
    expect(n).toBe(1);
  });

  it("refuses (422, nothing written) when the environment has no delegated-access key, and another environment's wallet (404)", async () => {
    const t = await app.bootstrap({ ownerEmail: `delegated-${randomUUID()}@example.com` });
    const walletId = await wallet(t.environmentId);
    const input = { walletId, shareSetEpoch: 1, holder: 3, share: Buffer.from("s"), userId: null };
    const noKey = await app.db.tx((tx) => recordDelegatedShare(tx, accessOf(t), input)).catch((e: unknown) => e);
    expect(noKey).toBeInstanceOf(DomainError);
    expect(noKey).toMatchObject({ kind: "unprocessable", code: "delegated_access_key_missing" });

    const other = await app.bootstrap({ ownerEmail: `delegated-${randomUUID()}@example.com` });
    await registerKey(other.environmentId, rsaKeys().publicPem);
    const crossTenant = await app.db.tx((tx) => recordDelegatedShare(tx, accessOf(other), input)).catch((e: unknown) => e);
    expect(crossTenant).toMatchObject({ kind: "not_found" });
    for (const env of [t.environmentId, other.environmentId]) {
      expect((await app.db.one(`SELECT count(*)::int AS n FROM events WHERE environment_id = $1 AND event_name = $2`, [env, DELEGATED_SHARE_EVENT])).n).toBe(0);
    }
    expect((await app.db.one(`SELECT count(*)::int AS n FROM waas_share_backups WHERE wallet_id = $1`, [walletId])).n).toBe(0);
  });
});
