import { generateKeyPairSync, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/db.js";
import { closeDatabase } from "../../src/db/db.js";
import * as keys from "../../src/db/repositories/encryption-keys.js";
import * as gwConnections from "../../src/db/repositories/global-wallet-connections.js";
import * as invites from "../../src/db/repositories/invites.js";
import * as providers from "../../src/db/repositories/providers.js";
import * as sso from "../../src/db/repositories/sso.js";
import * as tenancy from "../../src/db/repositories/tenancy.js";
import * as tokens from "../../src/db/repositories/tokens.js";
import * as users from "../../src/db/repositories/users.js";
import * as wallets from "../../src/db/repositories/wallets.js";
import { findUserAggregate } from "../../src/db/repositories/user-aggregate.js";
import { listWalletVisits } from "../../src/db/repositories/visitors.js";
import { bootstrapTenant, type BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { migratedDatabase } from "../support/app.js";

// Contract: every tenant-scoped repository function, given tenant B's id, neither reads nor changes
// tenant A's rows.
let db: Database;
let a: BootstrapResult;
let b: BootstrapResult;

beforeAll(async () => {
  db = await migratedDatabase();
  a = await bootstrapTenant(db);
  b = await bootstrapTenant(db);
});
afterAll(() => closeDatabase(db));

describe("tenancy repository", () => {
  it("finds members only within their organization and puts environments only under its own projects", async () => {
    expect(await tenancy.findMember(db, b.organizationId, a.memberId)).toBeNull();
    expect(await tenancy.findMemberByEmail(db, b.organizationId, "owner@example.com")).not.toMatchObject({ id: a.memberId });
    expect((await tenancy.findMember(db, a.organizationId, a.memberId))?.role).toBe("owner");
    // An environment for A's project requested under B's organization is not created.
    const ref = await tenancy.insertEnvironment(db, b.organizationId, a.projectId, "live");
    expect(await tenancy.findEnvironment(db, ref.id)).toBeNull();
  });
});

describe("tokens repository", () => {
  it("lists and deletes only within the environment", async () => {
    expect((await tokens.listTokens(db, b.environmentId)).map((t) => t.id)).not.toContain(a.tokenId);
    expect(await tokens.deleteToken(db, b.environmentId, a.tokenId)).toBeNull();
    expect((await tokens.listTokens(db, a.environmentId)).map((t) => t.id)).toContain(a.tokenId);
  });
});

describe("users repository", () => {
  it("finds users only within their environment", async () => {
    const u = await users.insertUser(db, a.environmentId, { email: "iso@example.com" });
    await users.insertCredential(db, a.environmentId, u.id, { format: "email", email: "iso@example.com" });
    expect(await users.findUser(db, b.environmentId, u.id)).toBeNull();
    expect(await users.userExistsWithEmail(db, b.environmentId, "iso@example.com")).toBe(false);
    expect((await users.findUser(db, a.environmentId, u.id))?.email).toBe("iso@example.com");
    expect(await findUserAggregate(db, b.environmentId, u.id)).toBeNull();
    const agg = await findUserAggregate(db, a.environmentId, u.id);
    expect(agg?.credentials.map((c) => c.email)).toEqual(["iso@example.com"]);
    expect(agg?.user.createdAt).toBeInstanceOf(Date);
  });
});

describe("wallets repository", () => {
  it("reads, deletes and recovers only within the environment", async () => {
    const u = await users.insertUser(db, a.environmentId, {});
    const w = await wallets.insertWallet(db, a.environmentId, u.id, {
      name: "w",
      chain: "EVM",
      address: `0x${"ab".repeat(20)}`,
      provider: "browserExtension",
      additionalAddresses: [{ address: "addr", type: "payment", publicKey: null }],
    });
    expect(await wallets.findWallet(db, b.environmentId, w.id)).toBeNull();
    expect(await wallets.listUserWallets(db, b.environmentId, u.id)).toEqual([]);
    expect(await wallets.softDeleteWallet(db, b.environmentId, w.id)).toBe(false);
    expect(await wallets.findWallet(db, a.environmentId, w.id)).not.toBeNull();
    // Inserting for a user of another environment inserts nothing.
    await expect(
      wallets.insertWallet(db, b.environmentId, u.id, { name: "x", chain: "EVM", address: `0x${"cd".repeat(20)}`, provider: "browserExtension" }),
    ).rejects.toThrow();
    expect(await wallets.softDeleteWallet(db, a.environmentId, w.id)).toBe(true);
    const wrong = await wallets.recoverUserWallets(db, b.environmentId, u.id);
    expect(wrong.wallets).toBe(0);
    expect(await wallets.findWallet(db, a.environmentId, w.id)).toBeNull();
    const right = await wallets.recoverUserWallets(db, a.environmentId, u.id);
    expect(right).toMatchObject({ wallets: 1, additionalAddresses: 1 });
    expect(await wallets.findWallet(db, a.environmentId, w.id)).not.toBeNull();
  });
});

describe("providers repository", () => {
  it("reads and toggles only within the environment", async () => {
    const id = providers.newProviderId();
    await providers.insertProvider(db, a.environmentId, id, {
      provider: "sms",
      clientId: null,
      clientSecretSealed: null,
      authorizationUrl: null,
      baseAuthUrl: null,
      scopes: null,
      defaultChainId: null,
      defaultChain: null,
      keyExportUrl: null,
      termsUrl: null,
      termsAcceptedByMemberId: null,
      termsAcceptedEmail: null,
      termsAcceptedAt: null,
      settings: {},
    });
    expect(await providers.findProvider(db, b.environmentId, id)).toBeNull();
    expect(await providers.setProviderEnabled(db, b.environmentId, id, false)).toBeNull();
    expect((await providers.listProviders(db, b.environmentId)).map((p) => p.id)).not.toContain(id);
    expect((await providers.findProvider(db, a.environmentId, id))?.enabledAt).not.toBeNull();
  });
});

describe("invites repository", () => {
  it("lists and finds only within the organization", async () => {
    const inv = await invites.insertInvite(db, a.organizationId, { email: "x@example.com", role: "viewer", createdByMemberId: a.memberId, ttlDays: 7 });
    expect(await invites.findInvite(db, b.organizationId, inv.id)).toBeNull();
    expect((await invites.listInvites(db, b.organizationId)).map((i) => i.id)).not.toContain(inv.id);
    expect(await invites.pendingInviteExists(db, b.organizationId, "x@example.com")).toBe(false);
    expect(await invites.pendingInviteExists(db, a.organizationId, "x@example.com")).toBe(true);
  });
});

describe("encryption keys repository", () => {
  it("lists only within the environment, and the same kid may exist in two environments", async () => {
    const pem = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ type: "spki", format: "pem" }).toString();
    const k = await keys.insertEncryptionKey(db, a.environmentId, { kid: "kid-1", publicKey: pem, alg: "RSA-OAEP-256", type: "external" });
    expect(k).not.toBeNull();
    expect((await keys.listEncryptionKeys(db, b.environmentId)).map((x) => x.id)).not.toContain(k!.id);
    expect(await keys.insertEncryptionKey(db, b.environmentId, { kid: "kid-1", publicKey: pem, alg: "RSA-OAEP-256", type: "external" })).not.toBeNull();
    expect(await keys.insertEncryptionKey(db, a.environmentId, { kid: "kid-1", publicKey: pem, alg: "RSA-OAEP-256", type: "external" })).toBeNull();
  });
});

describe("visitors repository", () => {
  it("lists and filters only within the environment", async () => {
    const u = await users.insertUser(db, a.environmentId, { email: "visitor-iso@example.com" });
    await db.none(
      `INSERT INTO wallets (id, environment_id, user_id, credential_id, name, chain, address, provider)
       VALUES (gen_random_uuid(), $1, $2, gen_random_uuid(), 'w', 'EVM', '0xfeed0001', 'browserExtension')`,
      [a.environmentId, u.id],
    );
    const visit = (await db.one("INSERT INTO visits (id, environment_id, visitor_id, user_id) VALUES (gen_random_uuid(), $1, 'iso', $2) RETURNING id", [a.environmentId, u.id])).id;
    const query = (column: "all" | "id" | "walletPublicKey", value: string) => ({
      filter: { column, value },
      orderBy: { column: "createdAt" as const, direction: "desc" as const },
      offset: 0,
      limit: 10,
    });
    for (const q of [query("id", visit), query("all", visit), query("all", u.id), query("all", "iso"), query("walletPublicKey", "0xfeed")]) {
      expect(await listWalletVisits(db, b.environmentId, q)).toEqual({ rows: [], count: 0 });
      expect((await listWalletVisits(db, a.environmentId, q)).rows.map((r) => r.id)).toEqual([visit]);
    }
  });
});

describe("global wallet connections repository", () => {
  it("inserts, finds and locks a user's connection only within the user's environment", async () => {
    const u = await users.insertUser(db, a.environmentId, { email: "gw-iso@example.com" });
    const c = { id: randomUUID(), userId: u.id, appUrl: "https://shop.example", expiresAt: new Date(Date.now() + 60_000) };
    expect(await gwConnections.insertLiveConnection(db, b.environmentId, c)).toBeNull();
    const created = await gwConnections.insertLiveConnection(db, a.environmentId, c);
    expect(created?.environmentId).toBe(a.environmentId);
    expect(await gwConnections.lockLiveConnection(db, b.environmentId, u.id, c.appUrl)).toBeNull();
    expect(await gwConnections.lockUserConnection(db, b.environmentId, u.id, c.id)).toBeNull();
    expect((await gwConnections.lockUserConnection(db, a.environmentId, u.id, c.id))?.id).toBe(c.id);
    expect(await gwConnections.listConnections(db, b.environmentId, {}, { offset: 0, limit: 10 })).toEqual([]);
  });
});

describe("sso repository", () => {
  it("finds a provider by domain only within its organization", async () => {
    const id = randomUUID();
    const domain = `iso-${id.slice(0, 8)}.example`;
    await sso.insertSsoProvider(db, a.organizationId, id, {
      protocol: "oidc",
      issuer: "https://idp.example.com",
      entryPoint: null,
      clientId: "cid",
      clientSecretSealed: null,
      certificate: null,
      enforce: false,
      domains: [domain],
    });
    expect(await sso.findSsoProviderForDomain(db, b.organizationId, domain)).toBeNull();
    expect((await sso.findSsoProviderForDomain(db, a.organizationId, domain))?.id).toBe(id);
  });
});
