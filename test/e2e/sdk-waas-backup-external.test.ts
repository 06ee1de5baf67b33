import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
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
  mode: "ok" | "down" | "refuse" | "garbage" = "ok";
  verifier: Webhook | undefined;
  rejectedSignatures = 0;
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
      const answer = this.mode === "garbage" ? { walletId: randomUUID(), shareSetEpoch: 1, holder: 2, encryptedShare: "x" } : { ...payload, encryptedShare: share };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  }

  stop() {
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

let app: TestApp;
let t: BootstrapResult;
let customer: Customer;

beforeAll(async () => {
  customer = await Customer.start();
  app = await startTestApp({ backups: { sealingKeys: [{ id: "backup-ext", key: randomBytes(32) }], cloudDriveUrl: "http://127.0.0.1:9" } });
  t = await app.bootstrap();
}, 120_000);
afterAll(async () => {
  await app?.stop();
  await customer?.stop();
});

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
  it("answers 422 while no endpoint subscribes to waas_wallet.key_share_backup, recording nothing", async () => {
    const w = await newWallet();
    const r = await backupExternal(w);
    expect(r.status, r.text).toBe(422);
    expect(r.body.code).toBe("external_backup_not_configured");
    expect(await rowsOf(w)).toBe(0);
  });

  it("stores the device's credential with a signed POST and reads it back with a signed GET; the device reopens its share", async () => {
    const created = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/webhooks`, {
      token: t.token,
      body: { url: customer.url, events: ["waas_wallet.key_share_backup"] },
    });
    expect(created.status, created.text).toBe(201);
    customer.verifier = new Webhook(created.body.secret);
    const w = await newWallet();
    const stored = await backupExternal(w);
    expect(stored.status, stored.text).toBe(200);
    expect(stored.body.locationsWithKeyShares[0]).toMatchObject({ location: "external", externalKeyShareId: `webhook:${created.body.webhookId}` });
    expect(customer.stored.size).toBeGreaterThan(0);
    expect(customer.rejectedSignatures).toBe(0);
    const recovered = await recover(w);
    const ext = recovered.keyShares.find((k) => k.backupLocation === "external")!;
    expect(ext.encryptedAccountCredential).toBe(w.device.backupCredentials()[0]);
    const lost = new TestDevice("ext-passcode");
    lost.restore([ext.encryptedAccountCredential!]);
    expect(lost.holderIndexes()).toEqual([2]);
  });

  it("answers 503 when the customer is down, 422 when it refuses, and 422 backup_unreadable for an answer about another wallet", async () => {
    const w = await newWallet();
    customer.mode = "down";
    try {
      const down = await backupExternal(w);
      expect(down.status).toBe(503);
      expect(down.body.code).toBe("backup_location_unavailable");
      expect(await rowsOf(w)).toBe(0);
      customer.mode = "refuse";
      const refused = await backupExternal(w);
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe("backup_location_refused");
      expect(await rowsOf(w)).toBe(0);
      customer.mode = "ok";
      expect((await backupExternal(w)).status).toBe(200);
      customer.mode = "garbage";
      const r = await call(app.baseUrl, "POST", `/sdk/${t.environmentId}/waas/${w.walletId}/keyShares/recover`, { token: w.jwt, body: {} });
      expect(r.status).toBeGreaterThanOrEqual(422);
      expect(["backup_location_unavailable", "backup_unreadable"]).toContain(r.body.code);
    } finally {
      customer.mode = "ok";
    }
  });
});
