import { randomUUID, type KeyObject } from "node:crypto";
import { exportSPKI, generateKeyPair, SignJWT } from "jose";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ComplianceService } from "../../src/gen/sigil/compliance/v0/compliance_service_pb.js";
import { ExchangesService } from "../../src/gen/sigil/exchanges/v0/exchanges_service_pb.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;

const email = () => `${randomUUID()}@example.com`;
const newTenant = () => app.bootstrap({ ownerEmail: email() });
const address = () => privateKeyToAddress(generatePrivateKey());

beforeAll(async () => {
  app = await startTestApp();
  t = await newTenant();
  other = await newTenant();
});
afterAll(() => app?.stop());

const count = async (table: string, environmentId: string) =>
  (await app.db.one(`SELECT count(*)::int AS n FROM ${table} WHERE environment_id = $1`, [environmentId])).n as number;
const audit = (resourceId: string, action: string) =>
  app.db.any("SELECT * FROM audit_log WHERE resource_id = $1 AND action = $2", [resourceId, action]);

const nftRule = (contract: string) => ({ type: "nft", chain: "eip155:1", address: { contractAddress: contract }, filter: { amount: "2" } });

async function createGate(tenant: BootstrapResult, body: Record<string, unknown>) {
  const res = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/gates`, { token: tenant.token, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe("gates", () => {
  it("creates a gate disabled with canonical rules, lists and reads it", async () => {
    const tenant = await newTenant();
    const contract = address();
    const g = await createGate(tenant, {
      name: "Holders",
      outcome: "scope",
      scope: "holder",
      rules: [
        { type: "nft", chain: "eip155:1", address: { contractAddress: contract.toLowerCase() }, filter: { tokenId: "0x01" } },
        // The published client's form: a chain family with the network id, the amount a JSON number.
        { type: "token", chain: "EVM", address: { contractAddress: contract, networkId: 137 }, filter: { amount: 1e21 } },
      ],
    });
    expect(g).toMatchObject({ name: "Holders", outcome: "scope", scope: "holder", enabledAt: null, projectEnvironmentId: tenant.environmentId });
    expect(g.rules).toEqual([
      { type: "nft", chain: "EVM", caip2: "eip155:1", address: { contractAddress: contract, networkId: 1 }, filter: { tokenId: "0x01", amount: 1 } },
      { type: "token", chain: "EVM", caip2: "eip155:137", address: { contractAddress: contract, networkId: 137 }, filter: { amount: 1e21 } },
    ]);
    const stored = await app.db.one("SELECT rules FROM gates WHERE id = $1", [g.id]);
    expect(stored.rules[1]).toMatchObject({ type: "token", chain: "eip155:137", filter: { amount: "1000000000000000000000" } });
    const list = await call(app.baseUrl, "GET", `/environments/${tenant.environmentId}/gates`, { token: tenant.token });
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(1);
    expect(list.body.gates[0]).toEqual(g);
    const read = await call(app.baseUrl, "GET", `/environments/${tenant.environmentId}/gates/${g.id}`, { token: tenant.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(g);
    const rows = await audit(g.id, "gate.created");
    expect(rows).toHaveLength(1);
    expect(rows[0].changes.after.rules).toHaveLength(2);
  });

  it("refuses bad gates with 400 and stores nothing", async () => {
    const tenant = await newTenant();
    const ok = address();
    for (const body of [
      { name: "g", outcome: "siteAccess", rules: [] },
      { name: "g", outcome: "siteAccess", rules: [{ ...nftRule(ok), type: "erc1155" }] },
      { name: "g", outcome: "siteAccess", rules: [nftRule("0x1234")] },
      { name: "g", outcome: "siteAccess", rules: [{ ...nftRule(ok), chain: "ETH" }] },
      { name: "g", outcome: "siteAccess", rules: [{ ...nftRule(ok), chain: "SOL", address: { contractAddress: ok, networkId: 104 } }] },
      { name: "g", outcome: "siteAccess", rules: [{ ...nftRule(ok), chain: "COSMOS", address: { contractAddress: ok, networkId: 1 } }] },
      { name: "g", outcome: "siteAccess", rules: [{ ...nftRule(ok), filter: { amount: 1.5 } }] },
      { name: "g", outcome: "siteAccess", rules: [{ ...nftRule(ok), chain: "cosmos:cosmoshub-4" }] },
      { name: "g", outcome: "siteAccess", rules: [{ ...nftRule(ok), filter: { amount: "-5" } }] },
      { name: "g", outcome: "siteAccess", rules: [{ ...nftRule(ok), filter: { amount: "0" } }] },
      { name: "g", outcome: "siteAccess", rules: [{ ...nftRule(ok), address: { contractAddress: ok, networkId: 5 } }] },
      { name: "g", outcome: "siteAccess", rules: [{ type: "nft", chain: "eip155:1" }] },
      { name: "g", outcome: "siteAccess", rules: [{ ...nftRule(ok), type: "tokenBalance", filter: { tokenId: "1" } }] },
      { name: "g", outcome: "scope", rules: [nftRule(ok)] },
      { outcome: "block", rules: [nftRule(ok)] },
    ]) {
      const res = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/gates`, { token: tenant.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof res.body.code).toBe("string");
    }
    expect(await count("gates", tenant.environmentId)).toBe(0);
    expect(await count("audit_log", tenant.environmentId)).toBe(0);
  });

  it("updates, enables, disables and deletes a gate, each audited", async () => {
    const tenant = await newTenant();
    const g = await createGate(tenant, { name: "G", outcome: "siteAccess", rules: [nftRule(address())] });
    const path = `/environments/${tenant.environmentId}/gates/${g.id}`;
    const solanaMint = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
    const updated = await call(app.baseUrl, "PUT", path, {
      token: tenant.token,
      body: { name: "Renamed", rules: [{ type: "tokenBalance", chain: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", address: { contractAddress: solanaMint } }] },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ name: "Renamed", outcome: "siteAccess", enabledAt: null });
    expect(updated.body.rules).toEqual([
      { type: "token", chain: "SOL", caip2: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", address: { contractAddress: solanaMint, networkId: 101 }, filter: { amount: 1 } },
    ]);
    expect(await audit(g.id, "gate.updated")).toHaveLength(1);

    const bad = await call(app.baseUrl, "PUT", path, { token: tenant.token, body: { outcome: "scope" } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("scope_required");
    expect((await app.db.one("SELECT outcome FROM gates WHERE id = $1", [g.id])).outcome).toBe("siteAccess");

    const on = await call(app.baseUrl, "PUT", `${path}/enable`, { token: tenant.token });
    expect(on.status).toBe(200);
    expect(typeof on.body.enabledAt).toBe("string");
    const off = await call(app.baseUrl, "PUT", `${path}/disable`, { token: tenant.token });
    expect(off.body.enabledAt).toBeNull();
    expect(await audit(g.id, "gate.enabled")).toHaveLength(1);
    expect(await audit(g.id, "gate.disabled")).toHaveLength(1);

    const del = await call(app.baseUrl, "DELETE", path, { token: tenant.token });
    expect(del.status).toBe(204);
    expect(await count("gates", tenant.environmentId)).toBe(0);
    expect(await audit(g.id, "gate.deleted")).toHaveLength(1);
    expect((await call(app.baseUrl, "GET", path, { token: tenant.token })).status).toBe(404);
  });

  it("answers 404 to another tenant on every gate path and changes nothing", async () => {
    const g = await createGate(t, { name: "Mine", outcome: "block", rules: [nftRule(address())] });
    for (const token of [other.token, other.memberToken]) {
      for (const [method, path, body] of [
        ["GET", `/environments/${t.environmentId}/gates`],
        ["POST", `/environments/${t.environmentId}/gates`, { name: "x", outcome: "block", rules: [nftRule(address())] }],
        ["GET", `/environments/${t.environmentId}/gates/${g.id}`],
        ["PUT", `/environments/${t.environmentId}/gates/${g.id}`, { name: "stolen" }],
        ["DELETE", `/environments/${t.environmentId}/gates/${g.id}`],
        ["PUT", `/environments/${t.environmentId}/gates/${g.id}/enable`],
        ["PUT", `/environments/${t.environmentId}/gates/${g.id}/disable`],
      ] as [string, string, unknown?][]) {
        const res = await call(app.baseUrl, method, path, { token, body });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
    }
    // Another tenant naming its own environment cannot reach this gate either.
    const viaOwnEnv = await call(app.baseUrl, "GET", `/environments/${other.environmentId}/gates/${g.id}`, { token: other.token });
    expect(viaOwnEnv.status).toBe(404);
    const row = await app.db.one("SELECT name, enabled_at FROM gates WHERE id = $1", [g.id]);
    expect(row).toEqual({ name: "Mine", enabled_at: null });
  });
});

describe("exchanges", () => {
  const secretBody = { exchange: "commerce", apiKey: "live-api-key-ABCD1234", apiSecret: "super-secret-exchange-value", passphrase: "pass-phrase-9" };

  it("connects an exchange with sealed credentials, never returned nor audited", async () => {
    const tenant = await newTenant();
    const res = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/settings/exchanges`, { token: tenant.token, body: secretBody });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ exchange: "commerce", apiKeyHint: "****1234", hasPassphrase: true, projectEnvironmentId: tenant.environmentId });
    expect(typeof res.body.enabledAt).toBe("string");
    for (const s of [secretBody.apiKey, secretBody.apiSecret, secretBody.passphrase]) expect(res.text).not.toContain(s);
    const id = res.body.id;
    const row = await app.db.one("SELECT * FROM exchanges WHERE id = $1", [id]);
    expect(app.deps.sealer.open(row.api_key_sealed, `exchange:${id}:api_key`)).toBe(secretBody.apiKey);
    expect(app.deps.sealer.open(row.api_secret_sealed, `exchange:${id}:api_secret`)).toBe(secretBody.apiSecret);
    expect(app.deps.sealer.open(row.passphrase_sealed, `exchange:${id}:passphrase`)).toBe(secretBody.passphrase);
    expect(JSON.stringify(row)).not.toContain(secretBody.apiSecret);

    const read = await call(app.baseUrl, "GET", `/settings/exchanges/${id}`, { token: tenant.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    const list = await call(app.baseUrl, "GET", `/environments/${tenant.environmentId}/settings/exchanges`, { token: tenant.token });
    expect(list.body).toMatchObject({ count: 1, exchanges: [res.body] });
    for (const s of [secretBody.apiKey, secretBody.apiSecret]) expect(read.text + list.text).not.toContain(s);

    const rows = await audit(id, "exchange.created");
    expect(rows).toHaveLength(1);
    const json = JSON.stringify(rows[0]);
    for (const s of [secretBody.apiKey, secretBody.apiSecret, secretBody.passphrase, row.api_key_sealed, row.api_secret_sealed]) expect(json).not.toContain(s);
  });

  it("refuses bad connections (400) and a second of the same kind (409), storing nothing", async () => {
    const tenant = await newTenant();
    const path = `/environments/${tenant.environmentId}/settings/exchanges`;
    for (const body of [
      { ...secretBody, exchange: "someVendor" },
      { ...secretBody, apiSecret: "" },
      { ...secretBody, apiKey: "short" },
      { ...secretBody, exchange: "generic" },
      { ...secretBody, exchange: "generic", apiBaseUrl: "ftp://x" },
    ]) {
      const res = await call(app.baseUrl, "POST", path, { token: tenant.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.text).not.toContain(secretBody.apiSecret);
    }
    expect(await count("exchanges", tenant.environmentId)).toBe(0);
    expect((await call(app.baseUrl, "POST", path, { token: tenant.token, body: secretBody })).status).toBe(201);
    const dup = await call(app.baseUrl, "POST", path, { token: tenant.token, body: secretBody });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("exchange_already_exists");
    expect(await count("exchanges", tenant.environmentId)).toBe(1);
    const generic = await call(app.baseUrl, "POST", path, {
      token: tenant.token,
      body: { ...secretBody, exchange: "generic", apiBaseUrl: "https://api.exchange.example", displayName: "My exchange" },
    });
    expect(generic.status, generic.text).toBe(201);
    expect(generic.body).toMatchObject({ apiBaseUrl: "https://api.exchange.example", displayName: "My exchange" });
  });

  it("refuses an exchange URL the service may not reach (400 invalid_api_base_url), as it refuses it when used: http or a private host for live", async () => {
    const tenant = await newTenant();
    const livePath = `/environments/${tenant.liveEnvironmentId}/settings/exchanges`;
    for (const apiBaseUrl of ["http://api.exchange.example", "https://127.0.0.1:9443", "https://10.0.0.7", "https://user:pw@api.exchange.example", "https://api.exchange.example/?q=1"]) {
      const res = await call(app.baseUrl, "POST", livePath, { token: tenant.memberToken, body: { ...secretBody, exchange: "generic", apiBaseUrl } });
      expect([res.status, res.body.code, res.body.payload?.field], apiBaseUrl).toEqual([400, "invalid_api_base_url", "apiBaseUrl"]);
    }
    expect(await count("exchanges", tenant.liveEnvironmentId)).toBe(0);
    const ok = await call(app.baseUrl, "POST", livePath, { token: tenant.memberToken, body: { ...secretBody, exchange: "generic", apiBaseUrl: "https://api.exchange.example/v2" } });
    expect(ok.status, ok.text).toBe(201);
  });

  it("disables, enables and deletes a connection, audited", async () => {
    const tenant = await newTenant();
    const created = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/settings/exchanges`, {
      token: tenant.token,
      body: { exchange: "custody", apiKey: "custody-key-0001", apiSecret: "custody-secret-0001" },
    });
    const id = created.body.id;
    expect(created.body.hasPassphrase).toBe(false);
    const off = await call(app.baseUrl, "PUT", `/settings/exchanges/${id}/disable`, { token: tenant.token });
    expect(off.status).toBe(200);
    expect(off.body.enabledAt).toBeNull();
    const on = await call(app.baseUrl, "PUT", `/settings/exchanges/${id}/enable`, { token: tenant.token });
    expect(typeof on.body.enabledAt).toBe("string");
    expect(await audit(id, "exchange.disabled")).toHaveLength(1);
    expect(await audit(id, "exchange.enabled")).toHaveLength(1);
    const del = await call(app.baseUrl, "DELETE", `/settings/exchanges/${id}`, { token: tenant.token });
    expect(del.status).toBe(204);
    expect(await count("exchanges", tenant.environmentId)).toBe(0);
    const deleted = await audit(id, "exchange.deleted");
    expect(deleted).toHaveLength(1);
    expect(JSON.stringify(deleted[0])).not.toContain("custody-secret-0001");
  });

  it("answers 404 to another tenant on every exchange path and changes nothing", async () => {
    const created = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/settings/exchanges`, {
      token: t.token,
      body: { exchange: "partner", apiKey: "partner-key-0001", apiSecret: "partner-secret-0001" },
    });
    const id = created.body.id;
    for (const token of [other.token, other.memberToken]) {
      for (const [method, path, body] of [
        ["GET", `/environments/${t.environmentId}/settings/exchanges`],
        ["POST", `/environments/${t.environmentId}/settings/exchanges`, { exchange: "commerce", apiKey: "intruder-key", apiSecret: "intruder-secret" }],
        ["GET", `/settings/exchanges/${id}`],
        ["DELETE", `/settings/exchanges/${id}`],
        ["PUT", `/settings/exchanges/${id}/enable`],
        ["PUT", `/settings/exchanges/${id}/disable`],
      ] as [string, string, unknown?][]) {
        const res = await call(app.baseUrl, method, path, { token, body });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
    }
    const row = await app.db.one("SELECT enabled_at FROM exchanges WHERE id = $1", [id]);
    expect(row.enabled_at).not.toBeNull();
    expect(await count("exchanges", t.environmentId)).toBe(1);
  });
});

describe("compliance", () => {
  it("reads the sanctions setting (off by default), enables and disables it, audited", async () => {
    const tenant = await newTenant();
    const base = `/environments/${tenant.environmentId}/integrations/compliance`;
    const initial = await call(app.baseUrl, "GET", base, { token: tenant.token });
    expect(initial.status).toBe(200);
    expect(initial.body).toMatchObject({ projectEnvironmentId: tenant.environmentId, sanctionsEnabled: false, sanctionsEnabledAt: null });
    const on = await call(app.baseUrl, "PUT", `${base}/sanctions/enable`, { token: tenant.token });
    expect(on.status, on.text).toBe(200);
    expect(on.body.sanctionsEnabled).toBe(true);
    expect(typeof on.body.sanctionsEnabledAt).toBe("string");
    const again = await call(app.baseUrl, "PUT", `${base}/sanctions/enable`, { token: tenant.token });
    expect(again.body.sanctionsEnabledAt).toBe(on.body.sanctionsEnabledAt);
    expect((await call(app.baseUrl, "GET", base, { token: tenant.token })).body.sanctionsEnabled).toBe(true);
    const off = await call(app.baseUrl, "PUT", `${base}/sanctions/disable`, { token: tenant.token });
    expect(off.body).toMatchObject({ sanctionsEnabled: false, sanctionsEnabledAt: null });
    const enabledRows = await audit(tenant.environmentId, "compliance.sanctions.enabled");
    expect(enabledRows).toHaveLength(2);
    expect(enabledRows[0]).toMatchObject({ resource_type: "compliance", organization_id: tenant.organizationId });
    expect(await audit(tenant.environmentId, "compliance.sanctions.disabled")).toHaveLength(1);
  });

  it("answers 404 to another tenant and 400 to a malformed environment id, changing nothing", async () => {
    const tenant = await newTenant();
    const base = `/environments/${tenant.environmentId}/integrations/compliance`;
    for (const token of [other.token, other.memberToken]) {
      expect((await call(app.baseUrl, "GET", base, { token })).status).toBe(404);
      expect((await call(app.baseUrl, "PUT", `${base}/sanctions/enable`, { token })).status).toBe(404);
      expect((await call(app.baseUrl, "PUT", `${base}/sanctions/disable`, { token })).status).toBe(404);
    }
    const bad = await call(app.baseUrl, "PUT", `/environments/NOT-A-UUID/integrations/compliance/sanctions/enable`, { token: tenant.token });
    expect(bad.status).toBe(400);
    expect(await count("environment_compliance", tenant.environmentId)).toBe(0);
    expect(await count("audit_log", tenant.environmentId)).toBe(0);
  });
});

describe("over gRPC", () => {
  it("creates an exchange and toggles sanctions screening through the gRPC protocol", async () => {
    const tenant = await newTenant();
    const headers = { authorization: `Bearer ${tenant.token}` };
    const transport = createGrpcTransport({ baseUrl: app.baseUrl });
    const exchanges = createClient(ExchangesService, transport);
    const created = await exchanges.createExchange(
      { environmentId: tenant.environmentId, exchange: "commerce", apiKey: "grpc-key-00009999", apiSecret: "grpc-secret-value" },
      { headers },
    );
    expect(created.exchange?.apiKeyHint).toBe("****9999");
    const read = await exchanges.getExchange({ exchangeId: created.exchange!.id }, { headers });
    expect(read.exchange?.exchange).toBe("commerce");
    const compliance = createClient(ComplianceService, transport);
    const on = await compliance.enableSanctions({ environmentId: tenant.environmentId }, { headers });
    expect(on.compliance?.sanctionsEnabled).toBe(true);
    await expect(exchanges.getExchange({ exchangeId: created.exchange!.id }, { headers: { authorization: `Bearer ${other.token}` } })).rejects.toMatchObject({
      code: 5,
    });
  });
});

describe("exchanges as the published client creates them", () => {
  it("connects an exchange without credentials, with its sign-in provider; credentials come both or not at all", async () => {
    const tenant = await newTenant();
    const path = `/environments/${tenant.environmentId}/settings/exchanges`;
    const half = await call(app.baseUrl, "POST", path, { token: tenant.token, body: { exchange: "custody", apiKey: "live-api-key-ABCD1234" } });
    expect(half.status).toBe(400);
    expect(half.body.code).toBe("credentials_incomplete");
    const badProvider = await call(app.baseUrl, "POST", path, { token: tenant.token, body: { exchange: "custody", socialProvider: "vendor" } });
    expect(badProvider.status).toBe(400);
    expect(await count("exchanges", tenant.environmentId)).toBe(0);
    const res = await call(app.baseUrl, "POST", path, { token: tenant.token, body: { exchange: "custody", socialProvider: "oauth2" } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ exchange: "custody", socialProvider: "oauth2", hasPassphrase: false });
    expect(res.body.apiKeyHint).toBeUndefined();
    expect(typeof res.body.enabledAt).toBe("string");
  });
});

describe("external JWT check", () => {
  const issuer = "https://auth.example.com";
  async function configure(tenant: BootstrapResult, externalAuth: Record<string, unknown>) {
    const res = await call(app.baseUrl, "PUT", `/environments/${tenant.environmentId}`, { token: tenant.token, body: { security: { externalAuth } } });
    expect(res.status, res.text).toBe(200);
  }
  const sign = (key: CryptoKey | KeyObject, claims: { iss?: string; aud?: string; exp?: string | number } = {}) =>
    new SignJWT({})
      .setProtectedHeader({ alg: "ES256" })
      .setIssuer(claims.iss ?? issuer)
      .setAudience(claims.aud ?? "app")
      .setSubject("u1")
      .setIssuedAt()
      .setExpirationTime(claims.exp ?? "5m")
      .sign(key);
  const check = (tenant: BootstrapResult, encodedJwt: string, token = tenant.token) =>
    call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/externalJwt/check`, { token, body: { encodedJwt } });

  it("accepts a token of the configured issuer and says why others are refused", async () => {
    const tenant = await newTenant();
    const { publicKey, privateKey } = await generateKeyPair("ES256");
    const stranger = await generateKeyPair("ES256");
    const notConfigured = await check(tenant, await sign(privateKey));
    expect(notConfigured.status, notConfigured.text).toBe(200);
    expect(notConfigured.body.valid).toBe(false);
    expect(notConfigured.body.errors).toHaveLength(2);

    await configure(tenant, { enabled: true, iss: issuer, aud: "app", publicKey: await exportSPKI(publicKey) });
    const ok = await check(tenant, await sign(privateKey));
    expect(ok.body).toEqual({ valid: true, errors: [] });
    const cases: [string, RegExp][] = [
      [await sign(privateKey, { aud: "other" }), /claim aud/],
      [await sign(privateKey, { iss: "https://evil.example.com" }), /claim iss/],
      [await sign(privateKey, { exp: Math.floor(Date.now() / 1000) - 60 }), /expired/],
      [await sign(stranger.privateKey), /signature/],
      ["not-a-jwt", /malformed/],
    ];
    for (const [jwt, reason] of cases) {
      const res = await check(tenant, jwt);
      expect(res.status).toBe(200);
      expect(res.body.valid, jwt).toBe(false);
      expect(res.body.errors.join("; ")).toMatch(reason);
    }
    await configure(tenant, { enabled: false, iss: issuer, aud: "app", publicKey: await exportSPKI(publicKey) });
    expect((await check(tenant, await sign(privateKey))).body.errors).toEqual(["external JWT authentication is not enabled for this environment"]);
  });

  it("answers 400 without a token and 404 to another tenant", async () => {
    const tenant = await newTenant();
    const empty = await check(tenant, "");
    expect(empty.status).toBe(400);
    expect((await check(tenant, "a.b.c", other.token)).status).toBe(404);
  });
});
