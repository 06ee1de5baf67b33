import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkWaasBackupService } from "../../src/gen/sigil/waas/v0/sdk_waas_backup_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { sdkFor } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";
import { TestDevice, type RoomView } from "../support/waas-device.js";

/**
 * The `external` backup location: the customer's own endpoint, a webhook endpoint of the environment
 * subscribed to waas_wallet.key_share_backup. A loopback customer verifies the Standard Webhooks signature
 * of every call (the POST that stores, the GET that reads back) with the `standardwebhooks` library, as a
 * customer would, and keeps what it was sent. Faults: the customer down, refusing, answering garbage; no
 * endpoint configured.
 */

class Customer {
  readonly stored = new Map<string, string>();
  mode: "ok" | "down" | "refuse" | "garbage" | "notOurs" = "ok";
  verifier: Webhook | undefined;
  rejectedSignatures = 0;
  /** Every backup request (store or read back) that reached this customer, whatever its answer. */
  calls = 0;
  private constructor(private readonly server: Server) {}

  static async start(): Promise<Customer> {
    const c: Customer = new Customer(createServer((req, res) => c.handle(req, res)));
    await new Promise<void>((r) => c.server.listen(0, "127.0.0.1", () => r()));
    return c;
  }

  get url() {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/backups`;
  }

  private handle(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      // Ordinary webhook deliveries (an endpoint subscribed to "*" gets user.created...) are taken and ignored.
      if (req.headers["user-agent"] !== "Sigil-Backups/1") return res.writeHead(204).end();
      this.calls++;
      if (this.mode === "down") return res.socket?.destroy();
      if (this.mode === "refuse") return res.writeHead(401).end();
      const signed = req.method === "POST" ? body : (new URL(req.url!, "http://x").searchParams.get("payload") ?? "");
      let payload: { walletId: string; shareSetEpoch: number; holder: number; encryptedShare?: string };
      try {
        payload = this.verifier!.verify(signed, req.headers as Record<string, string>) as typeof payload;
      } catch {
        this.rejectedSignatures++;
        return res.writeHead(400).end();
      }
      const key = `${payload.walletId}:${payload.shareSetEpoch}:${payload.holder}`;
      if (req.method === "POST") {
        this.stored.set(key, payload.encryptedShare!);
        return res.writeHead(204).end();
      }
      const share = this.stored.get(key);
      if (!share) return res.writeHead(404).end();
      // garbage: an answer about another wallet; notOurs: the right key, but not what the service stored.
      const answer =
        this.mode === "garbage"
          ? { walletId: randomUUID(), shareSetEpoch: 1, holder: 2, encryptedShare: share }
          : { ...payload, encryptedShare: this.mode === "notOurs" ? "not-a-backup" : share };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  }

  stop() {
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;
let customer: Customer;
/** Another environment's customer, subscribed there: never called for this environment's wallets. */
let otherCustomer: Customer;
let otherEndpointId: string;
/** A second endpoint of this environment, made after the first: the oldest enabled one is used. */
let newerCustomer: Customer;
let endpointId: string;

beforeAll(async () => {
  [customer, otherCustomer, newerCustomer] = await Promise.all([Customer.start(), Customer.start(), Customer.start()]);
  app = await startTestApp({ backups: { sealingKeys: [{ id: "backup-ext", key: randomBytes(32) }], cloudDriveUrl: "http://127.0.0.1:9" } });
  t = await app.bootstrap();
  other = await app.bootstrap();
  const o = await createEndpoint(other, otherCustomer.url, ["waas_wallet.key_share_backup"]);
  expect(o.status, o.text).toBe(201);
  otherEndpointId = o.body.webhookId;
  otherCustomer.verifier = new Webhook(o.body.secret);
}, 120_000);
afterAll(async () => {
  await app?.stop();
  await Promise.all([customer, otherCustomer, newerCustomer].map((c) => c?.stop()));
});

const createEndpoint = (env: BootstrapResult, url: string, events: string[]) =>
  call(app.baseUrl, "POST", `/environments/${env.environmentId}/webhooks`, { token: env.token, body: { url, events } });

async function newWallet() {
  const user = await signInAs(app, t.environmentId);
  const device = new TestDevice("ext-passcode");
  const created = await sdkFor(app.baseUrl, user.jwt).createWaasAccount({
    environmentId: t.environmentId,
    createWaasAccountRequest: { chain: "EVM" as never, clientKeygenIds: device.keygenIds(1), thresholdSignatureScheme: "TWO_OF_TWO" as never },
  });
  const room = (await call(app.baseUrl, "GET", `/sdk/${t.environmentId}/waas/rooms/${created.roomId}`, { token: user.jwt })).body as RoomView;
  await device.receive(room.result!.shareSet);
  return { jwt: user.jwt, walletId: created.walletId!, device };
}

type Wallet = Awaited<ReturnType<typeof newWallet>>;

/** backupKeySharesToLocations with Sigil's extension field: the credential for the customer's endpoint. */
const backupExternal = (w: Wallet) =>
  call(app.baseUrl, "POST", `/sdk/${t.environmentId}/waas/${w.walletId}/keyShares/backup/locations`, {
    token: w.jwt,
    body: { locations: [{ location: "external", encryptedAccountCredential: w.device.backupCredentials()[0], passwordEncrypted: true }] },
  });
const recover = (w: Wallet) => sdkFor(app.baseUrl, w.jwt).recoverKeyShares({ environmentId: t.environmentId, walletId: w.walletId, recoverMultipleClientKeySharesRequest: {} });
const rowsOf = async (w: Wallet) => (await app.db.one("SELECT count(*)::int AS n FROM waas_share_backups WHERE wallet_id = $1 AND location = 'external'", [w.walletId])).n;

describe("the customer's own backup endpoint", () => {
  it("answers 422 while no endpoint of this environment subscribes to waas_wallet.key_share_backup, recording nothing", async () => {
    // An endpoint subscribed to every event ("*") is not a backup location: only an explicit subscription is.
    const all = await createEndpoint(t, newerCustomer.url, ["*"]);
    expect(all.status, all.text).toBe(201);
    const w = await newWallet();
    const r = await backupExternal(w);
    expect(r.status, r.text).toBe(422);
    expect(r.body.code).toBe("external_backup_not_configured");
    expect(await rowsOf(w)).toBe(0);
    // The other environment's endpoint, subscribed, was never called; nor was the "*" one.
    expect(otherCustomer.calls).toBe(0);
    expect(newerCustomer.calls).toBe(0);
    const del = await call(app.baseUrl, "DELETE", `/environments/${t.environmentId}/webhooks/${all.body.webhookId}`, { token: t.token });
    expect(del.status, del.text).toBeLessThan(300);
  });

  it("refuses a private-address backup URL when the endpoint is made (the webhook destination rules)", async () => {
    for (const url of ["http://10.0.0.1/backups", "http://169.254.169.254/latest", "http://[::ffff:192.168.1.1]/"]) {
      const r = await createEndpoint(t, url, ["waas_wallet.key_share_backup"]);
      expect(r.status, url).toBe(400);
    }
    expect((await app.db.one("SELECT count(*)::int AS n FROM webhooks WHERE environment_id = $1", [t.environmentId])).n).toBe(0);
  });

  it("stores the device's credential with a signed POST and reads it back with a signed GET; the device reopens its share", async () => {
    const created = await createEndpoint(t, customer.url, ["waas_wallet.key_share_backup"]);
    expect(created.status, created.text).toBe(201);
    endpointId = created.body.webhookId;
    customer.verifier = new Webhook(created.body.secret);
    // A newer endpoint subscribed too: the oldest enabled one is the backup location.
    const newer = await createEndpoint(t, newerCustomer.url, ["waas_wallet.key_share_backup"]);
    expect(newer.status, newer.text).toBe(201);
    newerCustomer.verifier = new Webhook(newer.body.secret);
    const w = await newWallet();
    const stored = await backupExternal(w);
    expect(stored.status, stored.text).toBe(200);
    expect(stored.body.locationsWithKeyShares[0]).toMatchObject({ location: "external", externalKeyShareId: `webhook:${created.body.webhookId}` });
    expect(customer.stored.get(`${w.walletId}:1:2`)).toBeDefined();
    expect(customer.rejectedSignatures).toBe(0);
    expect(newerCustomer.calls).toBe(0);
    // The service keeps no copy of what it sent the customer: the row is a reference.
    const row = await app.db.one("SELECT * FROM waas_share_backups WHERE wallet_id = $1 AND location = 'external'", [w.walletId]);
    expect(JSON.stringify(row)).not.toContain(w.device.backupCredentials()[0]);
    const recovered = await recover(w);
    const ext = recovered.keyShares.find((k) => k.backupLocation === "external")!;
    expect(ext.encryptedAccountCredential).toBe(w.device.backupCredentials()[0]);
    const lost = new TestDevice("ext-passcode");
    lost.restore([ext.encryptedAccountCredential!]);
    expect(lost.holderIndexes()).toEqual([2]);
  });

  it("answers 503 when the customer is down, 422 when it refuses; an answer about another wallet 503, one that is not a backup 422", async () => {
    const w = await newWallet();
    customer.mode = "down";
    try {
      const down = await backupExternal(w);
      expect(down.status).toBe(503);
      expect(down.body.code).toBe("backup_location_unavailable");
      expect(down.headers.get("retry-after")).toBe("5");
      expect(await rowsOf(w)).toBe(0);
      customer.mode = "refuse";
      const refused = await backupExternal(w);
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe("backup_location_refused");
      expect(await rowsOf(w)).toBe(0);
      customer.mode = "ok";
      expect((await backupExternal(w)).status).toBe(200);
      const recoverRaw = () => call(app.baseUrl, "POST", `/sdk/${t.environmentId}/waas/${w.walletId}/keyShares/recover`, { token: w.jwt, body: {} });
      customer.mode = "garbage";
      const wrong = await recoverRaw();
      expect(wrong.status, wrong.text).toBe(503);
      expect(wrong.body.code).toBe("backup_location_unavailable");
      expect(wrong.headers.get("retry-after")).toBe("5");
      customer.mode = "notOurs";
      const notOurs = await recoverRaw();
      expect(notOurs.status, notOurs.text).toBe(422);
      expect(notOurs.body.code).toBe("backup_unreadable");
      customer.mode = "refuse";
      const refusedRead = await recoverRaw();
      expect(refusedRead.status, refusedRead.text).toBe(422);
      expect(refusedRead.body.code).toBe("backup_location_refused");
    } finally {
      customer.mode = "ok";
    }
  });

  it("takes the credential for the customer's endpoint over gRPC too (the extension field of BackupLocation)", async () => {
    const w = await newWallet();
    const client = createClient(SdkWaasBackupService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const headers = { authorization: `Bearer ${w.jwt}` };
    const credential = w.device.backupCredentials()[0]!;
    const b = await client.backupKeySharesToLocations(
      { environmentId: t.environmentId, walletId: w.walletId, locations: [{ location: "external", encryptedAccountCredential: credential, passwordEncrypted: true }] },
      { headers },
    );
    expect(b.locationsWithKeyShares[0]?.externalKeyShareId).toBe(`webhook:${endpointId}`);
    const r = await client.recoverKeyShares({ environmentId: t.environmentId, walletId: w.walletId }, { headers });
    expect(r.keyShares.find((k) => k.backupLocation === "external")).toMatchObject({ encryptedAccountCredential: credential, passwordEncrypted: true });
  });

  it("never reads back from another environment's endpoint, even when a row names it", async () => {
    const w = await newWallet();
    expect((await backupExternal(w)).status).toBe(200);
    await app.db.none("UPDATE waas_share_backups SET reference = $2 WHERE wallet_id = $1 AND location = 'external'", [w.walletId, `webhook:${otherEndpointId}`]);
    const before = otherCustomer.calls;
    const recovered = await recover(w);
    const ext = recovered.keyShares.find((k) => k.backupLocation === "external")!;
    expect(ext.encryptedAccountCredential).toBeUndefined();
    expect(otherCustomer.calls).toBe(before);
  });

  it("answers the backup without its credential once its endpoint is deleted", async () => {
    const w = await newWallet();
    expect((await backupExternal(w)).status).toBe(200);
    const del = await call(app.baseUrl, "DELETE", `/environments/${t.environmentId}/webhooks/${endpointId}`, { token: t.token });
    expect(del.status, del.text).toBeLessThan(300);
    const before = customer.calls;
    const recovered = await recover(w);
    const ext = recovered.keyShares.find((k) => k.backupLocation === "external")!;
    expect(ext).toMatchObject({ externalKeyShareId: `webhook:${endpointId}` });
    expect(ext.encryptedAccountCredential).toBeUndefined();
    expect(customer.calls).toBe(before);
  });
});
