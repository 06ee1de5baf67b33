import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AllowlistsService } from "../../src/gen/sigil/allowlists/v0/allowlists_service_pb.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;

const email = () => `${randomUUID()}@example.com`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: email() });
  other = await app.bootstrap({ ownerEmail: email() });
});
afterAll(() => app?.stop());

async function createList(tenant: BootstrapResult, body: Record<string, unknown> = { name: "VIPs", outcome: "siteAccess" }) {
  const res = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/allowlists`, { token: tenant.token, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function addEntry(tenant: BootstrapResult, allowlistId: string, body: Record<string, unknown>) {
  const res = await call(app.baseUrl, "POST", `/allowlists/${allowlistId}/entries`, { token: tenant.token, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const count = async (table: string, environmentId: string) =>
  (await app.db.one(`SELECT count(*)::int AS n FROM ${table} WHERE environment_id = $1`, [environmentId])).n as number;
const audit = (resourceId: string, action: string) =>
  app.db.any("SELECT * FROM audit_log WHERE resource_id = $1 AND action = $2", [resourceId, action]);

describe("allowlists", () => {
  it("creates an allowlist disabled (201), lists it with a count and reads it", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const a = await createList(tenant, { name: "Beta testers", outcome: "scope", scope: "beta tester" });
    expect(a.id).toMatch(UUID);
    expect(a).toMatchObject({ name: "Beta testers", outcome: "scope", scope: "beta tester", projectEnvironmentId: tenant.environmentId });
    expect(a.enabledAt).toBeNull();
    await createList(tenant);
    const list = await call(app.baseUrl, "GET", `/environments/${tenant.environmentId}/allowlists?limit=1`, { token: tenant.token });
    expect(list.status).toBe(200);
    // REST answers the bare array (the published client's shape); offset and limit page it.
    expect(list.body).toHaveLength(1);
    expect(list.body[0].id).toBe(a.id);
    const second = await call(app.baseUrl, "GET", `/environments/${tenant.environmentId}/allowlists?offset=1&limit=1`, { token: tenant.token });
    expect(second.body).toHaveLength(1);
    expect(second.body[0].name).toBe("VIPs");
    const all = await call(app.baseUrl, "GET", `/environments/${tenant.environmentId}/allowlists`, { token: tenant.token });
    expect(all.body).toHaveLength(2);
    const read = await call(app.baseUrl, "GET", `/allowlists/${a.id}`, { token: tenant.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(a);
    const rows = await audit(a.id, "allowlist.created");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ environment_id: tenant.environmentId, organization_id: tenant.organizationId, resource_type: "allowlist" });
  });

  it("refuses bad allowlists with 400 and stores nothing", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    for (const body of [
      { outcome: "siteAccess" },
      { name: "x", outcome: "allowEverybody" },
      { name: "x", outcome: "scope" },
      { name: "x", outcome: "scope", scope: "bad\nscope" },
      { name: "x".repeat(256), outcome: "block" },
      { name: "   ", outcome: "block" },
    ]) {
      const res = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/allowlists`, { token: tenant.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof res.body.code).toBe("string");
    }
    expect(await count("allowlists", tenant.environmentId)).toBe(0);
    expect(await count("audit_log", tenant.environmentId)).toBe(0);
  });

  it("updates name, outcome and scope (PUT /allowlists/{allowlistId}), 400 on bad input", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const a = await createList(tenant);
    const res = await call(app.baseUrl, "PUT", `/allowlists/${a.id}`, { token: tenant.token, body: { name: "Renamed", outcome: "scope", scope: "gold" } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: a.id, name: "Renamed", outcome: "scope", scope: "gold", enabledAt: null });
    const rows = await audit(a.id, "allowlist.updated");
    expect(rows).toHaveLength(1);
    expect(rows[0].changes.before).toMatchObject({ name: "VIPs", outcome: "siteAccess" });
    expect(rows[0].changes.after).toMatchObject({ name: "Renamed", outcome: "scope", scope: "gold" });

    for (const body of [{ outcome: "nope" }, { scope: "" }, { name: "" }]) {
      const bad = await call(app.baseUrl, "PUT", `/allowlists/${a.id}`, { token: tenant.token, body });
      expect(bad.status, JSON.stringify(body)).toBe(400);
    }
    const row = await app.db.one("SELECT name, outcome, scope FROM allowlists WHERE id = $1", [a.id]);
    expect(row).toEqual({ name: "Renamed", outcome: "scope", scope: "gold" });
    expect(await audit(a.id, "allowlist.updated")).toHaveLength(1);
  });

  it("enables and disables an allowlist, audited", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const a = await createList(tenant);
    const on = await call(app.baseUrl, "PUT", `/allowlists/${a.id}/enable`, { token: tenant.token });
    expect(on.status).toBe(200);
    expect(typeof on.body.enabledAt).toBe("string");
    const off = await call(app.baseUrl, "PUT", `/allowlists/${a.id}/disable`, { token: tenant.token });
    expect(off.status).toBe(200);
    expect(off.body.enabledAt).toBeNull();
    expect(await audit(a.id, "allowlist.enabled")).toHaveLength(1);
    expect(await audit(a.id, "allowlist.disabled")).toHaveLength(1);
  });

  it("deletes an allowlist with its entries (204)", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const a = await createList(tenant);
    await addEntry(tenant, a.id, { email: "a@example.com" });
    const res = await call(app.baseUrl, "DELETE", `/allowlists/${a.id}`, { token: tenant.token });
    expect(res.status).toBe(204);
    expect(await count("allowlists", tenant.environmentId)).toBe(0);
    expect(await count("allowlist_entries", tenant.environmentId)).toBe(0);
    expect(await audit(a.id, "allowlist.deleted")).toHaveLength(1);
    expect((await call(app.baseUrl, "GET", `/allowlists/${a.id}`, { token: tenant.token })).status).toBe(404);
  });
});

describe("allowlist entries", () => {
  it("stores each type canonical, as type + value or the named field", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const a = await createList(tenant);
    const address = privateKeyToAddress(generatePrivateKey());
    const wallet = await addEntry(tenant, a.id, { walletPublicKey: address.toLowerCase(), alias: "treasury" });
    expect(wallet).toMatchObject({ allowListId: a.id, type: "walletPublicKey", value: address, walletPublicKey: address, chain: "EVM", alias: "treasury" });
    const mail = await addEntry(tenant, a.id, { type: "email", value: "  Alice@Example.COM " });
    expect(mail).toMatchObject({ type: "email", value: "alice@example.com", email: "alice@example.com" });
    const domain = await addEntry(tenant, a.id, { emailDomain: "@Example.org" });
    expect(domain).toMatchObject({ type: "emailDomain", value: "example.org", emailDomain: "example.org" });
    const phone = await addEntry(tenant, a.id, { type: "phoneNumber", value: "+1 (415) 555-0100" });
    expect(phone).toMatchObject({ type: "phoneNumber", value: "+14155550100", phoneNumber: "+14155550100" });
    const rows = await audit(mail.id, "allowlist_entry.created");
    expect(rows).toHaveLength(1);
    expect(rows[0].changes.after).toMatchObject({ allowlistId: a.id, type: "email", value: "alice@example.com" });
  });

  it("answers 422 entry_already_exists for a duplicate, whatever its spelling", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const a = await createList(tenant);
    const address = privateKeyToAddress(generatePrivateKey());
    await addEntry(tenant, a.id, { walletPublicKey: address });
    await addEntry(tenant, a.id, { email: "dup@example.com" });
    for (const body of [{ walletPublicKey: address.toLowerCase() }, { type: "email", value: "DUP@example.com" }]) {
      const res = await call(app.baseUrl, "POST", `/allowlists/${a.id}/entries`, { token: tenant.token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe("entry_already_exists");
    }
    expect(await count("allowlist_entries", tenant.environmentId)).toBe(2);
    // The same identifier may be on another allowlist.
    const b = await createList(tenant);
    await addEntry(tenant, b.id, { email: "dup@example.com" });
  });

  it("validates the value per type with 400 and stores nothing", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const a = await createList(tenant);
    const cases: [Record<string, unknown>, string | null][] = [
      [{ walletPublicKey: "0x1234" }, "invalid_wallet_address"],
      [{ walletPublicKey: "0x52908400098527886E0F7030069857D2E4169EE7".replace("E7", "e7") }, "invalid_wallet_address"],
      [{ email: "not-an-email" }, "invalid_email"],
      [{ emailDomain: "not a domain" }, "invalid_email_domain"],
      [{ phoneNumber: "12345" }, "invalid_phone_number"],
      [{ type: "email" }, "entry_value_required"],
      [{ value: "a@example.com" }, "entry_type_required"],
      [{ email: "a@example.com", phoneNumber: "+14155550100" }, "ambiguous_entry"],
      [{ type: "twitterHandle", value: "x" }, null],
      [{}, "entry_identifier_required"],
      [{ email: "a@example.com", chain: "EVM" }, "chain_not_applicable"],
    ];
    for (const [body, code] of cases) {
      const res = await call(app.baseUrl, "POST", `/allowlists/${a.id}/entries`, { token: tenant.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      if (code) expect(res.body.code, JSON.stringify(body)).toBe(code);
    }
    expect(await count("allowlist_entries", tenant.environmentId)).toBe(0);
  });

  it("lists entries paginated with a count and a search query", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const a = await createList(tenant);
    for (let i = 0; i < 5; i++) await addEntry(tenant, a.id, { email: `user${i}@example.com`, alias: i === 3 ? "the_boss" : "" });
    const page = await call(app.baseUrl, "GET", `/allowlists/${a.id}/entries?offset=1&limit=2`, { token: tenant.token });
    expect(page.status).toBe(200);
    expect(page.body.count).toBe(5);
    expect(page.body.entries.map((e: any) => e.email)).toEqual(["user1@example.com", "user2@example.com"]);
    const found = await call(app.baseUrl, "GET", `/allowlists/${a.id}/entries?query=BOSS`, { token: tenant.token });
    expect(found.body.count).toBe(1);
    expect(found.body.entries[0].email).toBe("user3@example.com");
    // LIKE wildcards are taken literally.
    const literal = await call(app.baseUrl, "GET", `/allowlists/${a.id}/entries?query=%25`, { token: tenant.token });
    expect(literal.body.count).toBe(0);
    const bad = await call(app.baseUrl, "GET", `/allowlists/${a.id}/entries?limit=5000`, { token: tenant.token });
    expect(bad.status).toBe(400);
  });

  it("deletes an entry (204), audited", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const a = await createList(tenant);
    const e = await addEntry(tenant, a.id, { email: "gone@example.com" });
    const res = await call(app.baseUrl, "DELETE", `/allowlistEntries/${e.id}`, { token: tenant.token });
    expect(res.status).toBe(204);
    expect(await count("allowlist_entries", tenant.environmentId)).toBe(0);
    expect(await audit(e.id, "allowlist_entry.deleted")).toHaveLength(1);
    expect((await call(app.baseUrl, "DELETE", `/allowlistEntries/${e.id}`, { token: tenant.token })).status).toBe(404);
  });
});

describe("tenancy", () => {
  it("answers 404 to another tenant's tokens on every allowlist path and changes nothing", async () => {
    const a = await createList(t);
    const e = await addEntry(t, a.id, { email: "mine@example.com" });
    for (const token of [other.token, other.memberToken]) {
      for (const [method, path, body] of [
        ["GET", `/environments/${t.environmentId}/allowlists`],
        ["POST", `/environments/${t.environmentId}/allowlists`, { name: "x", outcome: "block" }],
        ["GET", `/allowlists/${a.id}`],
        ["PUT", `/allowlists/${a.id}`, { name: "stolen" }],
        ["DELETE", `/allowlists/${a.id}`],
        ["PUT", `/allowlists/${a.id}/enable`],
        ["PUT", `/allowlists/${a.id}/disable`],
        ["GET", `/allowlists/${a.id}/entries`],
        ["POST", `/allowlists/${a.id}/entries`, { email: "intruder@example.com" }],
        ["DELETE", `/allowlistEntries/${e.id}`],
      ] as [string, string, unknown?][]) {
        const res = await call(app.baseUrl, method, path, { token, body });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
    }
    const row = await app.db.one("SELECT name, enabled_at FROM allowlists WHERE id = $1", [a.id]);
    expect(row).toEqual({ name: "VIPs", enabled_at: null });
    expect(await count("allowlists", t.environmentId)).toBe(1);
    expect(await count("allowlist_entries", t.environmentId)).toBe(1);
    expect(await count("allowlists", other.environmentId)).toBe(0);
  });

  it("lets the owner's member token manage the allowlists of its organization", async () => {
    const a = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/allowlists`, {
      token: t.memberToken,
      body: { name: "By member", outcome: "block" },
    });
    expect(a.status, a.text).toBe(201);
    const rows = await audit(a.body.id, "allowlist.created");
    expect(rows[0].actor_account_id).toBe(t.accountId);
    expect(rows[0].actor_member_id).toBe(t.memberId);
    const entry = await call(app.baseUrl, "POST", `/allowlists/${a.body.id}/entries`, { token: t.memberToken, body: { emailDomain: "spam.example" } });
    expect(entry.status, entry.text).toBe(201);
  });
});

describe("over gRPC", () => {
  it("creates an allowlist and an entry through the gRPC protocol", async () => {
    const client = createClient(AllowlistsService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const headers = { authorization: `Bearer ${t.token}` };
    const created = await client.createAllowlist({ environmentId: t.environmentId, name: "grpc", outcome: "block" }, { headers });
    expect(created.allowlist?.name).toBe("grpc");
    const entry = await client.createAllowlistEntry({ allowlistId: created.allowlist!.id, type: "email", value: "G@Example.com" }, { headers });
    expect(entry.entry?.value).toBe("g@example.com");
    const listed = await client.listAllowlistEntries({ allowlistId: created.allowlist!.id }, { headers });
    expect(listed.count).toBe(1);
    await expect(client.createAllowlistEntry({ allowlistId: created.allowlist!.id, email: "g@example.com" }, { headers })).rejects.toMatchObject({
      code: 9, // FailedPrecondition carries 422
    });
  });
});
