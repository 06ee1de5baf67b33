import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { checkCustomerBackupUrl, createCustomerBackup } from "../../src/adapters/customer-backup.js";
import type { CustomerBackupTarget } from "../../src/domain/deps.js";
import { DEFAULT_WEBHOOK_SETTINGS } from "../../src/config.js";
import { destinationRules, resolver } from "../../src/net/destination-policy.js";
import { newWebhookSecret } from "../../src/domain/webhooks/secret.js";
import { CustomerBackupPeer } from "./support/customer-backup-peer.js";
import { failure } from "../support/domain-errors.js";

const secret = newWebhookSecret();
let peer: CustomerBackupPeer;
const backups = createCustomerBackup({ ...DEFAULT_WEBHOOK_SETTINGS, protectedPorts: [] }, { timeoutMs: 1000 });
let target: CustomerBackupTarget;

beforeAll(async () => {
  peer = await CustomerBackupPeer.start(secret);
  target = { url: peer.url(), secret, environmentName: "sandbox" };
});
afterAll(() => peer?.stop());
afterEach(() => {
  peer.override = null;
});

const key = () => ({ walletId: randomUUID(), shareSetEpoch: 3, holder: 3 });

describe("customer backup URL adapter", () => {
  it("stores with a signed POST and fetches back with a signed GET, both verified by the customer's Standard Webhooks code", async () => {
    const k = key();
    await backups.store(target, { ...k, encryptedShare: "jwe-of-the-share" });
    const post = peer.requests.at(-1)!;
    expect(post).toMatchObject({ method: "POST", url: "/backups", status: 204 });
    expect(JSON.parse(post.body)).toEqual({ ...k, encryptedShare: "jwe-of-the-share" });
    expect(post.headers["webhook-signature"]).toMatch(/^v1,/);
    expect(post.headers["content-type"]).toBe("application/json");
    expect(await backups.fetch(target, k)).toBe("jwe-of-the-share");
    const get = peer.requests.at(-1)!;
    expect(get).toMatchObject({ method: "GET", status: 200 });
    expect(new URL(get.url, "http://x").searchParams.get("payload")).toBe(JSON.stringify(k));
  });

  it("answers null when the customer has no such backup", async () => {
    expect(await backups.fetch(target, key())).toBeNull();
  });

  it("a request signed with another secret is refused by the customer: 422 backup_location_refused", async () => {
    const err = await failure(backups.store({ ...target, secret: newWebhookSecret() }, { ...key(), encryptedShare: "x" }));
    expect(err.kind).toBe("unprocessable");
    expect(err.code).toBe("backup_location_refused");
    expect(peer.requests.at(-1)!.status).toBe(401);
  });

  it("refuses an answer about another wallet, epoch or holder (a confused or hostile customer service)", async () => {
    const k = key();
    for (const wrong of [{ walletId: randomUUID() }, { shareSetEpoch: 2 }, { holder: 1 }, { encryptedShare: 5 }]) {
      peer.override = () => ({ status: 200, body: JSON.stringify({ ...k, encryptedShare: "x", ...wrong }) });
      expect((await failure(backups.fetch(target, k))).code).toBe("backup_location_unavailable");
    }
    peer.override = () => ({ status: 200, body: "not json" });
    expect((await failure(backups.fetch(target, k))).code).toBe("backup_location_unavailable");
  });

  it("refuses an answer larger than the bound", async () => {
    const small = createCustomerBackup({ ...DEFAULT_WEBHOOK_SETTINGS, protectedPorts: [] }, { timeoutMs: 1000, maxBytes: 200 });
    const k = key();
    peer.override = () => ({ status: 200, body: JSON.stringify({ ...k, encryptedShare: "x".repeat(500) }) });
    expect((await failure(small.fetch(target, k))).code).toBe("backup_location_unavailable");
  });

  it("maps 5xx, 429, a redirect and a closed port to 503 backup_location_unavailable", async () => {
    for (const status of [500, 503, 429]) {
      peer.override = () => ({ status });
      const err = await failure(backups.store(target, { ...key(), encryptedShare: "x" }));
      expect(err).toMatchObject({ kind: "unavailable", code: "backup_location_unavailable", payload: { location: "external" } });
    }
    // A redirect is not followed (it could lead past the destination policy).
    peer.override = () => ({ status: 307, headers: { location: "http://10.0.0.1/steal" } });
    expect((await failure(backups.fetch(target, key()))).code).toBe("backup_location_unavailable");
    const closed = { ...target, url: "http://127.0.0.1:1/backups" };
    expect((await failure(backups.store(closed, { ...key(), encryptedShare: "x" }))).code).toBe("backup_location_unavailable");
  });

  it("bounds each request with a timeout", async () => {
    // A server that accepts the connection and never answers.
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const t0 = Date.now();
    const err = await failure(backups.store({ ...target, url: `http://127.0.0.1:${(silent.address() as { port: number }).port}/b` }, { ...key(), encryptedShare: "x" }));
    expect(err.code).toBe("backup_location_unavailable");
    expect(Date.now() - t0).toBeLessThan(3000);
    silent.close();
  });

  describe("destination policy (SSRF)", () => {
    const realLookup = resolver.lookup;
    afterEach(() => {
      resolver.lookup = realLookup;
    });

    it("refuses a live environment's loopback or http URL, credentials in the URL, and private addresses, sending nothing", async () => {
      const before = peer.requests.length;
      const live = { ...target, environmentName: "live" as const };
      for (const [t, match] of [
        [live, /https/],
        [{ ...live, url: peer.url().replace("http:", "https:") }, /loopback/],
        [{ ...target, url: "http://user:pw@127.0.0.1:1/b" }, /user name or password/],
        [{ ...target, url: "http://10.1.2.3/b" }, /not a public address/],
        [{ ...target, url: "http://169.254.169.254/latest/meta-data" }, /not a public address/],
      ] as const) {
        const err = await failure(backups.store(t, { ...key(), encryptedShare: "x" }));
        expect(err.kind).toBe("bad_request");
        expect(err.code).toBe("invalid_backup_url");
        expect(err.message).toMatch(match);
      }
      expect(peer.requests.length).toBe(before);
    });

    it("refuses the service's own ports on loopback", async () => {
      const port = Number(new URL(peer.url()).port);
      const guarded = createCustomerBackup({ ...DEFAULT_WEBHOOK_SETTINGS, protectedPorts: [port] }, { timeoutMs: 1000 });
      const before = peer.requests.length;
      expect((await failure(guarded.store(target, { ...key(), encryptedShare: "x" }))).code).toBe("invalid_backup_url");
      expect(peer.requests.length).toBe(before);
    });

    it("refuses, at connect time, a public-looking name that resolves inwards (DNS rebinding)", async () => {
      resolver.lookup = async () => [{ address: "10.0.0.7", family: 4 }];
      const err = await failure(backups.store({ url: "https://backups.customer.example/b", secret, environmentName: "live" }, { ...key(), encryptedShare: "x" }));
      expect(err.code).toBe("invalid_backup_url");
      expect(err.message).toMatch(/not an allowed destination/);
    });

    it("checkCustomerBackupUrl normalises an allowed URL", () => {
      expect(checkCustomerBackupUrl("https://Backups.Customer.example/b?x=1", destinationRules({ ...DEFAULT_WEBHOOK_SETTINGS }, "live"))).toBe("https://backups.customer.example/b?x=1");
    });
  });

  it("refuses a malformed holder or epoch before sending anything", async () => {
    const before = peer.requests.length;
    expect((await failure(backups.store(target, { ...key(), holder: 0, encryptedShare: "x" }))).code).toBe("invalid_backup_holder");
    expect((await failure(backups.fetch(target, { ...key(), shareSetEpoch: -1 }))).code).toBe("invalid_share_set_epoch");
    expect(peer.requests.length).toBe(before);
  });
});
