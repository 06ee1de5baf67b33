import { randomUUID } from "node:crypto";
import path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isOriginAllowed } from "../../src/domain/origins/service.js";
import { OriginsService } from "../../src/gen/sigil/origins/v0/origins_service_pb.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { verifyTestAccountCode } from "../../src/domain/test-accounts/service.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { seedEnvironmentSettings } from "./support/seed-environment-settings.js";
import { call } from "../support/http.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MISSING = "00000000-0000-4000-8000-000000000000";
const root = path.resolve(import.meta.dirname, "../..");

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: `${randomUUID()}@example.com` });
  other = await app.bootstrap({ ownerEmail: `${randomUUID()}@example.com` });
});
afterAll(() => app?.stop());

const count = async (table: string, environmentId: string) =>
  (await app.db.one(`SELECT count(*)::int AS n FROM ${table} WHERE environment_id = $1`, [environmentId])).n as number;
const audit = (resourceId: string) => app.db.any("SELECT * FROM audit_log WHERE resource_id = $1 ORDER BY created_at", [resourceId]);

function expectError(res: { status: number; body: any }, status: number, code?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ error: expect.any(String), code: code ?? expect.any(String) });
}

describe("origins", () => {
  const base = () => `/environments/${t.environmentId}/origins`;

  it("adds normalized origins, lists them with a count, and audits", async () => {
    const res = await call(app.baseUrl, "POST", base(), { token: t.token, body: { origin: "HTTPS://App.Example.com:443" } });
    expect(res.status, res.text).toBe(201);
    // The published client's InlineResponse201: the origin wrapped as {origin: {...}}.
    expect(res.body.origin).toMatchObject({ id: expect.stringMatching(UUID), origin: "https://app.example.com", projectEnvironmentId: t.environmentId });
    expect(res.body.origin.createdAt).toEqual(expect.any(String));
    const wild = await call(app.baseUrl, "POST", base(), { token: t.token, body: { origin: "https://*.preview.example.com" } });
    expect(wild.status, wild.text).toBe(201);
    const local = await call(app.baseUrl, "POST", base(), { token: t.token, body: { origin: "http://localhost:3000" } });
    expect(local.body.origin.origin).toBe("http://localhost:3000");

    const list = await call(app.baseUrl, "GET", `${base()}?limit=2`, { token: t.token });
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(3);
    expect(list.body.origins).toHaveLength(2);
    expect(list.body.origins[0].origin).toBe("https://app.example.com");

    const rows = await audit(res.body.origin.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ action: "origin.created", resource_type: "origin", environment_id: t.environmentId, organization_id: t.organizationId });
    expect(rows[0].changes.after.origin).toBe("https://app.example.com");
  });

  it("is the CORS allow-list: exact and wildcard matches only", async () => {
    expect(await isOriginAllowed(app.deps, t.environmentId, "https://app.example.com")).toBe(true);
    expect(await isOriginAllowed(app.deps, t.environmentId, "https://app.example.com:443")).toBe(true);
    expect(await isOriginAllowed(app.deps, t.environmentId, "https://pr-1.preview.example.com")).toBe(true);
    expect(await isOriginAllowed(app.deps, t.environmentId, "https://a.b.preview.example.com")).toBe(true);
    expect(await isOriginAllowed(app.deps, t.environmentId, "https://preview.example.com")).toBe(false);
    expect(await isOriginAllowed(app.deps, t.environmentId, "http://app.example.com")).toBe(false);
    expect(await isOriginAllowed(app.deps, t.environmentId, "https://evil.com")).toBe(false);
    expect(await isOriginAllowed(app.deps, t.environmentId, "null")).toBe(false);
    expect(await isOriginAllowed(app.deps, other.environmentId, "https://app.example.com")).toBe(false);
  });

  it("rejects malformed origins and duplicates, changing nothing", async () => {
    const before = await count("origins", t.environmentId);
    for (const origin of ["https://app.example.com/path", "https://x.example.com?q=1", "app.example.com", "https://*.com", "https://a*.example.com", "https://x.example.com:99999", "https://user@x.example.com", ""]) {
      const res = await call(app.baseUrl, "POST", base(), { token: t.token, body: { origin } });
      expectError(res, 400);
    }
    const dup = await call(app.baseUrl, "POST", base(), { token: t.token, body: { origin: "https://APP.example.com" } });
    expectError(dup, 422, "origin_already_exists");
    expect(await count("origins", t.environmentId)).toBe(before);
  });

  it("deletes by id; other tenants get 404 and change nothing", async () => {
    const created = await call(app.baseUrl, "POST", base(), { token: t.token, body: { origin: "https://delete-me.example.com" } });
    const id = created.body.origin.id;
    expectError(await call(app.baseUrl, "DELETE", `/origins/${id}`, { token: other.token }), 404);
    expectError(await call(app.baseUrl, "DELETE", `/origins/${id}`, { token: other.memberToken }), 404);
    expectError(await call(app.baseUrl, "GET", base(), { token: other.token }), 404);
    expectError(await call(app.baseUrl, "POST", base(), { token: other.token, body: { origin: "https://x.example.com" } }), 404);
    expect(await app.db.oneOrNone("SELECT 1 FROM origins WHERE id = $1", [id])).not.toBeNull();
    const del = await call(app.baseUrl, "DELETE", `/origins/${id}`, { token: t.token });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect(await app.db.oneOrNone("SELECT 1 FROM origins WHERE id = $1", [id])).toBeNull();
    expect((await audit(id)).map((r) => r.action)).toEqual(["origin.created", "origin.deleted"]);
    expectError(await call(app.baseUrl, "DELETE", `/origins/${id}`, { token: t.token }), 404);
    expectError(await call(app.baseUrl, "DELETE", `/origins/not-a-uuid`, { token: t.token }), 400);
  });

  it("member tokens act in their organization's environments", async () => {
    const res = await call(app.baseUrl, "POST", `/environments/${t.liveEnvironmentId}/origins`, { token: t.memberToken, body: { origin: "https://live.example.com" } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.origin.projectEnvironmentId).toBe(t.liveEnvironmentId);
    const del = await call(app.baseUrl, "DELETE", `/origins/${res.body.origin.id}`, { token: t.memberToken });
    expect(del.status).toBe(204);
  });
});

describe("deeplink URLs", () => {
  const base = () => `/environments/${t.environmentId}/deeplinkUrls`;

  it("adds custom-scheme and https URLs, lists, deletes, audits", async () => {
    const custom = await call(app.baseUrl, "POST", base(), { token: t.token, body: { url: "MyApp://callback" } });
    expect(custom.status, custom.text).toBe(201);
    expect(custom.body).toMatchObject({ id: expect.stringMatching(UUID), url: "myapp://callback", projectEnvironmentId: t.environmentId });
    const https = await call(app.baseUrl, "POST", base(), { token: t.token, body: { url: "https://App.example.com/auth/callback" } });
    expect(https.status, https.text).toBe(201);
    expect(https.body.url).toBe("https://app.example.com/auth/callback");
    const list = await call(app.baseUrl, "GET", base(), { token: t.token });
    expect(list.body.count).toBe(2);
    expect(list.body.deeplinkUrls.map((d: any) => d.url)).toEqual(["myapp://callback", "https://app.example.com/auth/callback"]);

    expectError(await call(app.baseUrl, "DELETE", `/deeplinkUrls/${custom.body.id}`, { token: other.token }), 404);
    const del = await call(app.baseUrl, "DELETE", `/deeplinkUrls/${custom.body.id}`, { token: t.token });
    expect(del.status).toBe(204);
    expect((await audit(custom.body.id)).map((r) => r.action)).toEqual(["deeplink_url.created", "deeplink_url.deleted"]);
    expectError(await call(app.baseUrl, "DELETE", `/deeplinkUrls/${MISSING}`, { token: t.token }), 404);
  });

  it("rejects dangerous or malformed URLs and duplicates, changing nothing", async () => {
    const before = await count("deeplink_urls", t.environmentId);
    for (const url of ["javascript://alert(1)", "data://x", "http://app.example.com/cb", "myapp:callback", "not a url", "https://x.example.com/#frag", "file:///etc/passwd", ""]) {
      expectError(await call(app.baseUrl, "POST", base(), { token: t.token, body: { url } }), 400);
    }
    expectError(await call(app.baseUrl, "POST", base(), { token: t.token, body: { url: "https://app.example.com/auth/callback" } }), 422, "deeplink_url_already_exists");
    expectError(await call(app.baseUrl, "GET", base(), { token: other.token }), 404);
    expect(await count("deeplink_urls", t.environmentId)).toBe(before);
  });
});

describe("SDK views", () => {
  const base = () => `/environments/${t.environmentId}/sdkViews`;

  it("reads defaults for never-set views", async () => {
    const res = await call(app.baseUrl, "GET", `${base()}/login`, { token: t.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ type: "login", customized: false, updatedAt: null });
    expect(res.body.sections[0]).toEqual({ type: "email", numOfItemsToDisplay: 0 });
    const list = await call(app.baseUrl, "GET", base(), { token: t.token });
    // The published client declares the login view only.
    expect(list.body.count).toBe(1);
    expect(list.body.sdkViews.map((v: any) => v.type)).toEqual(["login"]);
  });

  it("replaces a view's sections in order, and audits", async () => {
    const sections = [
      { type: "wallet", numOfItemsToDisplay: 3, defaultItem: "metamask" },
      { type: "separator", label: "Or" },
      { type: "email", alignment: "center" },
    ];
    const res = await call(app.baseUrl, "PUT", `${base()}/login`, { token: t.token, body: { sections } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ type: "login", customized: true, updatedAt: expect.any(String) });
    expect(res.body.sections.map((s: any) => s.type)).toEqual(["wallet", "separator", "email"]);
    expect(res.body.sections[0]).toMatchObject({ numOfItemsToDisplay: 3, defaultItem: "metamask" });
    const read = await call(app.baseUrl, "GET", `${base()}/login`, { token: t.token });
    expect(read.body.sections).toEqual(res.body.sections);
    const row = await app.db.one("SELECT * FROM sdk_views WHERE environment_id = $1 AND type = 'login'", [t.environmentId]);
    const rows = await audit(row.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ action: "sdk_view.updated", environment_id: t.environmentId });
    expect(rows[0].changes.before.customized).toBe(false);
    // Other environments are untouched.
    expect((await call(app.baseUrl, "GET", `/environments/${other.environmentId}/sdkViews/login`, { token: other.token })).body.customized).toBe(false);
  });

  it("rejects bad sections and types, changing nothing", async () => {
    const stored = await app.db.one("SELECT sections, updated_at FROM sdk_views WHERE environment_id = $1 AND type = 'login'", [t.environmentId]);
    const bad: [unknown, number, string?][] = [
      [[{ type: "banner" }], 400],
      [[{ type: "email" }, { type: "email" }], 422, "duplicate_sdk_view_section"],
      [[{ type: "separator" }], 422, "sdk_view_without_method"],
      [[{ type: "email", numOfItemsToDisplay: 3 }], 422, "invalid_sdk_view_section"],
      [[{ type: "wallet", numOfItemsToDisplay: 500 }], 400, "invalid_num_of_items"],
      [[{ type: "email", alignment: "middle" }], 400],
      [[], 400],
      [Array.from({ length: 21 }, () => ({ type: "separator" })), 400],
    ];
    for (const [sections, status, code] of bad) {
      expectError(await call(app.baseUrl, "PUT", `${base()}/login`, { token: t.token, body: { sections } }), status, code);
    }
    // Views the client does not declare are not served.
    expectError(await call(app.baseUrl, "PUT", `${base()}/walletList`, { token: t.token, body: { sections: [{ type: "wallet" }] } }), 400);
    expectError(await call(app.baseUrl, "GET", `${base()}/signup`, { token: t.token }), 400);
    expectError(await call(app.baseUrl, "GET", `${base()}/nope`, { token: t.token }), 400);
    expectError(await call(app.baseUrl, "GET", `${base()}/login`, { token: other.token }), 404);
    expectError(await call(app.baseUrl, "PUT", `/environments/${t.environmentId}/sdkViews/login`, { token: other.memberToken, body: { sections: [{ type: "email" }] } }), 404);
    const after = await app.db.one("SELECT sections, updated_at FROM sdk_views WHERE environment_id = $1 AND type = 'login'", [t.environmentId]);
    expect(after).toEqual(stored);
    expect(await count("sdk_views", t.environmentId)).toBe(1);
  });
});

describe("custom hostnames", () => {
  const base = () => `/environments/${t.environmentId}/custom/hostnames`;

  it("creates a pending hostname with its DNS records, lists, deletes, audits", async () => {
    const res = await call(app.baseUrl, "POST", base(), { token: t.token, body: { hostname: "Auth.Example.COM." } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ id: expect.stringMatching(UUID), hostname: "auth.example.com", usage: "cookies", status: "pending", verifiedAt: null, projectEnvironmentId: t.environmentId });
    const [txt, cname] = res.body.verificationRecords;
    expect(txt).toMatchObject({
      type: "TXT",
      dnsRecordType: "TXT",
      verificationType: "ownership",
      name: "_sigil-verification.auth.example.com",
      value: expect.stringMatching(/^sigil-verification=[0-9a-f]{32}$/),
    });
    expect(cname).toEqual({ type: "CNAME", dnsRecordType: "CNAME", verificationType: "alias", name: "auth.example.com", value: "localhost" });
    const list = await call(app.baseUrl, "GET", base(), { token: t.token });
    expect(list.body).toMatchObject({ count: 1, customHostnames: [{ id: res.body.id, verificationRecords: [txt, cname] }] });

    expectError(await call(app.baseUrl, "DELETE", `/environments/${other.environmentId}/custom/hostnames/${res.body.id}`, { token: other.token }), 404);
    expectError(await call(app.baseUrl, "DELETE", `${base()}/${res.body.id}`, { token: other.token }), 404);
    const del = await call(app.baseUrl, "DELETE", `${base()}/${res.body.id}`, { token: t.token });
    expect(del.status).toBe(204);
    expect((await audit(res.body.id)).map((r) => r.action)).toEqual(["custom_hostname.created", "custom_hostname.deleted"]);
    expectError(await call(app.baseUrl, "DELETE", `${base()}/${res.body.id}`, { token: t.token }), 404);
  });

  it("records the usage the published client sends, and refuses an unknown one", async () => {
    const res = await call(app.baseUrl, "POST", base(), { token: t.token, body: { hostname: "wallet.usage.example", usage: "globalWallet" } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.usage).toBe("globalWallet");
    const before = await count("custom_hostnames", t.environmentId);
    expectError(await call(app.baseUrl, "POST", base(), { token: t.token, body: { hostname: "other.usage.example", usage: "email" } }), 400);
    expect(await count("custom_hostnames", t.environmentId)).toBe(before);
    expect((await call(app.baseUrl, "DELETE", `${base()}/${res.body.id}`, { token: t.token })).status).toBe(204);
  });

  it("is unique across tenants (409) and validates RFC 1123, changing nothing", async () => {
    const created = await call(app.baseUrl, "POST", base(), { token: t.token, body: { hostname: "login.shared.example" } });
    expect(created.status).toBe(201);
    const before = await count("custom_hostnames", other.environmentId);
    expectError(await call(app.baseUrl, "POST", `/environments/${other.environmentId}/custom/hostnames`, { token: other.token, body: { hostname: "LOGIN.shared.example" } }), 409, "custom_hostname_already_exists");
    for (const hostname of ["localhost", "-bad.example.com", "bad_.example.com", "https://x.example.com", "x.example.com:443", "*.example.com", "1.2.3.4", `${"a".repeat(64)}.example.com`, "sub.localhost"]) {
      const res = await call(app.baseUrl, "POST", `/environments/${other.environmentId}/custom/hostnames`, { token: other.token, body: { hostname } });
      expect([400, 422], `${hostname}: ${res.text}`).toContain(res.status);
    }
    expect(await count("custom_hostnames", other.environmentId)).toBe(before);
    expectError(await call(app.baseUrl, "GET", base(), { token: other.token }), 404);
  });
});

describe("test account", () => {
  const base = () => `/environments/${t.environmentId}/test/account`;

  it("creates one account whose code is shown once and sealed at rest", async () => {
    expectError(await call(app.baseUrl, "GET", base(), { token: t.token }), 404);
    const res = await call(app.baseUrl, "POST", base(), { token: t.token, body: { email: "Reviewer@Example.com" } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ id: expect.stringMatching(UUID), email: "reviewer@example.com", code: expect.stringMatching(/^\d{6}$/), projectEnvironmentId: t.environmentId });
    const code = res.body.code;
    // Settings readers see the code again (opened from its sealed form) to hand it to the reviewer.
    const read = await call(app.baseUrl, "GET", base(), { token: t.token });
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(res.body.id);
    expect(read.body.code).toBe(code);
    const row = await app.db.one("SELECT * FROM test_accounts WHERE id = $1", [res.body.id]);
    expect(row.otp_code_sealed).not.toContain(code);
    expect(await verifyTestAccountCode(app.deps, t.environmentId, "reviewer@example.com", code)).toBe(true);
    expect(await verifyTestAccountCode(app.deps, t.environmentId, "reviewer@example.com", code === "000000" ? "000001" : "000000")).toBe(false);
    expect(await verifyTestAccountCode(app.deps, other.environmentId, "reviewer@example.com", code)).toBe(false);
    const rows = await audit(res.body.id);
    expect(rows).toHaveLength(1);
    expect(rows[0].action).toBe("test_account.created");
    expect(JSON.stringify(rows[0].changes)).not.toContain(code);

    expectError(await call(app.baseUrl, "POST", base(), { token: t.token, body: { phoneNumber: "+15551234567" } }), 409, "test_account_already_exists");
    expectError(await call(app.baseUrl, "GET", base(), { token: other.token }), 404);
    expectError(await call(app.baseUrl, "DELETE", base(), { token: other.token }), 404);
    expectError(await call(app.baseUrl, "DELETE", `/environments/${t.environmentId}/test/account`, { token: other.memberToken }), 404);
    expect(await count("test_accounts", t.environmentId)).toBe(1);

    const del = await call(app.baseUrl, "DELETE", base(), { token: t.token });
    expect(del.status).toBe(204);
    expect(await count("test_accounts", t.environmentId)).toBe(0);
    expect((await audit(res.body.id)).map((r) => r.action)).toEqual(["test_account.created", "test_account.deleted"]);
  });

  it("rejects bad input and a real user's identifier, changing nothing", async () => {
    const env = t.liveEnvironmentId;
    const path = `/environments/${env}/test/account`;
    await app.db.none("INSERT INTO users (id, environment_id, email) VALUES ($1, $2, 'real@example.com')", [randomUUID(), env]);
    expectError(await call(app.baseUrl, "POST", path, { token: t.memberToken, body: { email: "a@example.com", phoneNumber: "+15551234567" } }), 400);
    expectError(await call(app.baseUrl, "POST", path, { token: t.memberToken, body: { email: "not-an-email" } }), 400);
    expectError(await call(app.baseUrl, "POST", path, { token: t.memberToken, body: { phoneNumber: "5551234" } }), 400);
    expectError(await call(app.baseUrl, "POST", path, { token: t.memberToken, body: { email: "REAL@example.com" } }), 422, "identifier_belongs_to_user");
    expect(await count("test_accounts", env)).toBe(0);
    const phone = await call(app.baseUrl, "POST", path, { token: t.memberToken, body: { phoneNumber: "+15551234567" } });
    expect(phone.status, phone.text).toBe(201);
    expect(phone.body.phone).toBe("+15551234567");
    expect(phone.body.email).toBeUndefined();
  });

  it("creates an account without a body (as the published client does) under a reserved domain", async () => {
    const env = t.liveEnvironmentId;
    const path = `/environments/${env}/test/account`;
    await call(app.baseUrl, "DELETE", path, { token: t.memberToken });
    const res = await call(app.baseUrl, "POST", path, { token: t.memberToken });
    expect(res.status, res.text).toBe(201);
    expect(res.body.email).toMatch(/^app-review-[0-9a-f]{12}@example\.com$/);
    expect(res.body.code).toMatch(/^\d{6}$/);
    expect(await verifyTestAccountCode(app.deps, env, res.body.email, res.body.code)).toBe(true);
  });
});

describe("exchange rates", () => {
  it("serves the configured table to any token", async () => {
    const res = await call(app.baseUrl, "GET", "/exchangeRates", { token: t.token });
    expect(res.status, res.text).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    // One symbol is worth `value` of `code` (the published client's Currency).
    const eth = res.body.find((r: any) => r.symbol === "ETH" && r.code === "USD");
    expect(eth).toEqual({ name: "Ether", symbol: "ETH", type: "crypto", code: "USD", value: 3000, source: "configured", updatedAt: "2026-01-01T00:00:00Z" });
    // In this order on the wire: the SDK's exchangeRates answers the same message's first five (test/e2e/sdk-rates.test.ts).
    expect(Object.keys(eth).join()).toBe("name,symbol,type,code,value,source,updatedAt");
    expect(res.body.find((r: any) => r.symbol === "USD" && r.code === "EUR")).toMatchObject({ value: 0.92, type: "fiat" });
    const { n } = await app.db.one("SELECT count(*)::int AS n FROM exchange_rates");
    expect(res.body).toHaveLength(n);
    const viaMember = await call(app.baseUrl, "GET", "/exchangeRates", { token: other.memberToken });
    expect(viaMember.body).toEqual(res.body);
    expect((await call(app.baseUrl, "GET", "/exchangeRates")).status).toBe(401);
  });
});

describe("over gRPC and Connect", () => {
  it("adds and lists origins with @grpc/grpc-js and the project's .proto files", async () => {
    const def = protoLoader.loadSync(path.join(root, "proto", "sigil/origins/v0/origins_service.proto"), {
      includeDirs: [path.join(root, "proto"), path.join(root, "node_modules/google-proto-files")],
      defaults: true,
    });
    const pkg = grpc.loadPackageDefinition(def) as any;
    const client = new pkg.sigil.origins.v0.OriginsService(`127.0.0.1:${app.port}`, grpc.credentials.createInsecure());
    const meta = new grpc.Metadata();
    meta.set("authorization", `Bearer ${t.token}`);
    const unary = (method: string, req: unknown) =>
      new Promise<any>((resolve, reject) => client[method](req, meta, (err: any, res: any) => (err ? reject(err) : resolve(res))));
    const created = await unary("CreateOrigin", { environmentId: t.environmentId, origin: "https://grpc.example.com" });
    expect(created.origin.origin).toBe("https://grpc.example.com");
    const list = await unary("ListOrigins", { environmentId: t.environmentId });
    expect(list.origins.map((o: any) => o.origin)).toContain("https://grpc.example.com");
    await expect(unary("CreateOrigin", { environmentId: t.environmentId, origin: "https://grpc.example.com" })).rejects.toMatchObject({
      code: grpc.status.FAILED_PRECONDITION,
    });
    client.close();
  });

  it("deletes an origin over Connect", async () => {
    const client = createClient(OriginsService, createConnectTransport({ baseUrl: app.baseUrl, httpVersion: "1.1" }));
    const headers = { authorization: `Bearer ${t.token}` };
    const created = await client.createOrigin({ environmentId: t.environmentId, origin: "https://connect.example.com" }, { headers });
    await client.deleteOrigin({ originId: created.origin!.id }, { headers });
    expect(await app.db.oneOrNone("SELECT 1 FROM origins WHERE id = $1", [created.origin!.id])).toBeNull();
  });
});

describe("seed helper for the management matrix", () => {
  it("creates one resource of each kind, readable by the tenant", async () => {
    const tenant = await app.bootstrap({ ownerEmail: `${randomUUID()}@example.com` });
    const ids = await seedEnvironmentSettings(app, tenant);
    expect(Object.keys(ids).sort()).toEqual(["custom_hostname_id", "deeplink_url_id", "origin_id", "sso_provider_id"]);
    for (const p of [`/environments/${tenant.environmentId}/test/account`, `/organizations/${tenant.organizationId}/ssoProvider`]) {
      expect((await call(app.baseUrl, "GET", p, { token: tenant.memberToken })).status).toBe(200);
    }
    expect(await app.db.oneOrNone("SELECT 1 FROM origins WHERE id = $1 AND environment_id = $2", [ids.origin_id, tenant.environmentId])).not.toBeNull();
  });
});
