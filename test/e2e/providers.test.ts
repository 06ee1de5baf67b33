import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProvidersService } from "../../src/gen/sigil/providers/v0/providers_service_pb.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;

const email = () => `${randomUUID()}@example.com`;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: email() });
  other = await app.bootstrap({ ownerEmail: email() });
});
afterAll(() => app?.stop());

async function create(tenant: BootstrapResult, body: Record<string, unknown>) {
  const res = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/settings/providers`, { token: tenant.token, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const countProviders = async (environmentId: string) =>
  (await app.db.one("SELECT count(*)::int AS n FROM providers WHERE environment_id = $1", [environmentId])).n as number;

async function auditRows(resourceId: string, action: string) {
  return app.db.any("SELECT * FROM audit_log WHERE resource_id = $1 AND action = $2", [resourceId, action]);
}

describe("create, read, update and delete providers", () => {
  it("records the creation in the audit trail without the client secret", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const p = await create(tenant, { provider: "oauth2", clientId: "cid", clientSecret: "create-secret-123", authorizationUrl: "https://auth.example/authorize" });
    const rows = await auditRows(p.id, "provider.created");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ organization_id: tenant.organizationId, environment_id: tenant.environmentId, resource_type: "provider" });
    expect(rows[0].actor_token_id).toBe(tenant.tokenId);
    expect(rows[0].changes.after).toMatchObject({ provider: "oauth2", clientId: "cid", clientSecretSet: true });
    const json = JSON.stringify(rows[0]);
    expect(json).not.toContain("create-secret-123");
    const sealed = (await app.db.one("SELECT client_secret_sealed FROM providers WHERE id = $1", [p.id])).client_secret_sealed;
    expect(json).not.toContain(sealed);
  });

  it("reads a provider by id (GET /settings/providers/{providerId})", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const p = await create(tenant, { provider: "emailOnly" });
    const res = await call(app.baseUrl, "GET", `/settings/providers/${p.id}`, { token: tenant.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: p.id, provider: "emailOnly" });
    expect(typeof res.body.enabledAt).toBe("string");
    expect(typeof res.body.createdAt).toBe("string");
    // Member (account) tokens reach it too, through the environment the provider lives in.
    const viaMember = await call(app.baseUrl, "GET", `/settings/providers/${p.id}`, { token: tenant.memberToken });
    expect(viaMember.status, viaMember.text).toBe(200);
    expect(viaMember.body.id).toBe(p.id);
  });

  it("updates the given fields, re-seals a new client secret and never returns it (PUT /settings/providers/{providerId})", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const p = await create(tenant, {
      provider: "oidc",
      clientId: "old-client",
      clientSecret: "old-secret-value",
      authorizationUrl: "https://issuer.example/authorize",
      scopes: "openid",
      providerProjectId: "proj-1",
    });
    const res = await call(app.baseUrl, "PUT", `/settings/providers/${p.id}`, {
      token: tenant.token,
      body: { clientId: "new-client", clientSecret: "brand-new-secret", scopes: "openid email", domain: "login.example.com", providerProjectId: "" },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.text).not.toContain("brand-new-secret");
    expect(res.body).toMatchObject({
      id: p.id,
      clientId: "new-client",
      scopes: "openid email",
      domain: "login.example.com",
      authorizationUrl: "https://issuer.example/authorize",
    });
    expect(res.body).not.toHaveProperty("clientSecret");
    expect(res.body).not.toHaveProperty("providerProjectId");
    const row = await app.db.one("SELECT client_secret_sealed FROM providers WHERE id = $1", [p.id]);
    expect(app.deps.sealer.open(row.client_secret_sealed, `provider:${p.id}:client_secret`)).toBe("brand-new-secret");

    const rows = await auditRows(p.id, "provider.updated");
    expect(rows).toHaveLength(1);
    expect(rows[0].changes.before).toMatchObject({ clientId: "old-client" });
    expect(rows[0].changes.after).toMatchObject({ clientId: "new-client", clientSecretSet: true });
    const json = JSON.stringify(rows[0]);
    for (const secret of ["old-secret-value", "brand-new-secret", row.client_secret_sealed]) expect(json).not.toContain(secret);

    // An update without clientSecret keeps the secret.
    const again = await call(app.baseUrl, "PUT", `/settings/providers/${p.id}`, { token: tenant.token, body: { scopes: "openid" } });
    expect(again.status).toBe(200);
    const kept = await app.db.one("SELECT client_secret_sealed FROM providers WHERE id = $1", [p.id]);
    expect(app.deps.sealer.open(kept.client_secret_sealed, `provider:${p.id}:client_secret`)).toBe("brand-new-secret");
  });

  it("refuses bad updates with 400 and changes nothing", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const p = await create(tenant, { provider: "oauth2", clientId: "c", authorizationUrl: "https://auth.example/a", scopes: "x" });
    for (const body of [
      { authorizationUrl: "not a url" },
      { defaultChain: "eip" },
      { clientId: "x".repeat(513) },
      // Leaves an oauth2 provider without its authorization endpoint.
      { authorizationUrl: "", scopes: "changed" },
      { clientId: "", scopes: "changed" },
    ]) {
      const res = await call(app.baseUrl, "PUT", `/settings/providers/${p.id}`, { token: tenant.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof res.body.code).toBe("string");
      expect(typeof res.body.error).toBe("string");
    }
    const row = await app.db.one("SELECT scopes, client_id, authorization_url FROM providers WHERE id = $1", [p.id]);
    expect(row).toEqual({ scopes: "x", client_id: "c", authorization_url: "https://auth.example/a" });
    expect(await auditRows(p.id, "provider.updated")).toHaveLength(0);
  });

  it("deletes a provider with 204 and audits it (DELETE /settings/providers/{providerId})", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const p = await create(tenant, { provider: "sms", accountSid: "AC1", smsNumber: "+14155550100" });
    const res = await call(app.baseUrl, "DELETE", `/settings/providers/${p.id}`, { token: tenant.token });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe("");
    expect(await countProviders(tenant.environmentId)).toBe(0);
    const rows = await auditRows(p.id, "provider.deleted");
    expect(rows).toHaveLength(1);
    expect(rows[0].changes.before).toMatchObject({ provider: "sms" });
    expect((await call(app.baseUrl, "GET", `/settings/providers/${p.id}`, { token: tenant.token })).status).toBe(404);
    expect((await call(app.baseUrl, "DELETE", `/settings/providers/${p.id}`, { token: tenant.token })).status).toBe(404);
    // The kind can be configured again.
    await create(tenant, { provider: "sms" });
  });

  it("audits disable and enable", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const p = await create(tenant, { provider: "magicLink" });
    expect((await call(app.baseUrl, "PUT", `/settings/providers/${p.id}/disable`, { token: tenant.token })).status).toBe(200);
    expect((await call(app.baseUrl, "PUT", `/settings/providers/${p.id}/enable`, { token: tenant.token })).status).toBe(200);
    const disabled = await auditRows(p.id, "provider.disabled");
    expect(disabled).toHaveLength(1);
    expect(disabled[0].changes.after).toEqual({ enabledAt: null });
    expect(await auditRows(p.id, "provider.enabled")).toHaveLength(1);
  });

  it("answers 409 for a second provider of the same kind and stores nothing", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    await create(tenant, { provider: "emailOnly" });
    const res = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/settings/providers`, {
      token: tenant.token,
      body: { provider: "emailOnly" },
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("provider_already_exists");
    expect(await countProviders(tenant.environmentId)).toBe(1);
  });
});

describe("any OpenID Connect or OAuth 2 issuer by URL, and presets", () => {
  it("accepts an oidc provider configured by issuer URL", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const p = await create(tenant, { provider: "oidc", clientId: "cid", issuer: "https://id.example.org/realms/main" });
    expect(p).toMatchObject({ provider: "oidc", issuer: "https://id.example.org/realms/main", clientId: "cid" });
    const row = await app.db.one("SELECT issuer FROM providers WHERE id = $1", [p.id]);
    expect(row.issuer).toBe("https://id.example.org/realms/main");
  });

  it("fills the endpoints of a preset from the presets data", async () => {
    const presets = await call(app.baseUrl, "GET", `/environments/${t.environmentId}/settings/providers/presets`, { token: t.token });
    expect(presets.status, presets.text).toBe(200);
    const google = presets.body.presets.find((p: any) => p.key === "google");
    expect(google).toMatchObject({ provider: "oidc", issuer: "https://accounts.google.com" });
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const p = await create(tenant, { provider: "oidc", preset: "google", clientId: "cid", clientSecret: "preset-secret" });
    expect(p).toMatchObject({
      preset: "google",
      issuer: google.issuer,
      authorizationUrl: google.authorizationUrl,
      tokenUrl: google.tokenUrl,
      userinfoUrl: google.userinfoUrl,
      scopes: google.scopes,
    });
    // Fields given in the request win over the preset.
    const github = await create(tenant, { provider: "oauth2", preset: "github", clientId: "gh", scopes: "read:user" });
    expect(github).toMatchObject({ preset: "github", authorizationUrl: "https://github.com/login/oauth/authorize", scopes: "read:user" });
  });

  it("rejects unknown presets, presets of another kind and issuers without endpoint with 400, storing nothing", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const cases: [Record<string, unknown>, string][] = [
      [{ provider: "oidc", clientId: "c", preset: "no-such-issuer" }, "unknown_preset"],
      [{ provider: "oidc", clientId: "c", preset: "github" }, "preset_provider_mismatch"],
      [{ provider: "oauth2", clientId: "c", issuer: "https://id.example.org" }, "authorization_url_required"],
      [{ provider: "oidc", issuer: "https://id.example.org" }, "client_id_required"],
      [{ provider: "oidc", clientId: "c", issuer: "not-a-url" }, "invalid_argument"],
    ];
    for (const [body, code] of cases) {
      const res = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/settings/providers`, { token: tenant.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      if (code !== "invalid_argument") expect(res.body.code).toBe(code);
    }
    expect(await countProviders(tenant.environmentId)).toBe(0);
  });
});

describe("GET /environments/{environmentId}/settings/providers/urls", () => {
  it("lists the redirect URL to register with each OAuth provider of the environment", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const oidc = await create(tenant, { provider: "oidc", clientId: "c", issuer: "https://id.example.org" });
    await create(tenant, { provider: "emailOnly" });
    const res = await call(app.baseUrl, "GET", `/environments/${tenant.environmentId}/settings/providers/urls`, { token: tenant.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.providerUrls).toEqual([
      {
        provider: "oidc",
        providerId: oidc.id,
        redirectUrl: `${app.config.publicUrl}/api/v0/sdk/${tenant.environmentId}/providers/oidc/redirect`,
        authorizeHtmlUrl: `${app.config.publicUrl}/api/v0/sdk/${tenant.environmentId}/providers/oidc/authorizeHtml`,
        // The published client requires it: the issuer's endpoint, found here by discovery or preset.
        authorizationUrl: oidc.authorizationUrl ?? `${app.config.publicUrl}/api/v0/sdk/${tenant.environmentId}/providers/oidc/authorizeHtml`,
        ...(oidc.scopes ? { scopes: oidc.scopes } : {}),
      },
    ]);
    expect(res.body.providerUrls[0].redirectUrl).toBe(oidc.redirectUrl);
    expect(res.body.sdkBaseUrl).toBe(`${app.config.publicUrl}/api/v0/sdk/${tenant.environmentId}`);
    expect(res.body.jwksUrl).toBe(`${app.config.publicUrl}/api/v0/sdk/${tenant.environmentId}/.well-known/jwks.json`);
  });
});

describe("tenancy", () => {
  it("answers 404 to another tenant's tokens on every provider path and changes nothing", async () => {
    const p = await create(t, { provider: "chat", clientId: "chat-client", clientSecret: "chat-secret" });
    for (const token of [other.token, other.memberToken]) {
      for (const [method, path, body] of [
        ["GET", `/settings/providers/${p.id}`],
        ["PUT", `/settings/providers/${p.id}`, { clientId: "stolen" }],
        ["DELETE", `/settings/providers/${p.id}`],
        ["PUT", `/settings/providers/${p.id}/disable`],
        ["PUT", `/settings/providers/${p.id}/enable`],
        ["GET", `/environments/${t.environmentId}/settings/providers`],
        ["POST", `/environments/${t.environmentId}/settings/providers`, { provider: "sms" }],
        ["GET", `/environments/${t.environmentId}/settings/providers/urls`],
        ["GET", `/environments/${t.environmentId}/settings/providers/presets`],
      ] as [string, string, unknown?][]) {
        const res = await call(app.baseUrl, method, path, { token, body });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.code).toBe("not_found");
      }
    }
    const row = await app.db.one("SELECT client_id, enabled_at FROM providers WHERE id = $1", [p.id]);
    expect(row.client_id).toBe("chat-client");
    expect(row.enabled_at).not.toBeNull();
    expect(await countProviders(t.environmentId)).toBe(1);
  });
});

describe("over gRPC", () => {
  it("updates a provider and reads its URLs through the gRPC protocol", async () => {
    const tenant = await app.bootstrap({ ownerEmail: email() });
    const p = await create(tenant, { provider: "oauth2", clientId: "c", authorizationUrl: "https://auth.example/a" });
    const client = createClient(ProvidersService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const headers = { authorization: `Bearer ${tenant.token}` };
    const updated = await client.updateProvider({ providerId: p.id, clientSecret: "grpc-secret", scopes: "s1 s2" }, { headers });
    expect(updated.provider?.scopes).toBe("s1 s2");
    expect(updated.provider?.clientSecret).toBe("");
    const urls = await client.getProviderUrls({ environmentId: tenant.environmentId }, { headers });
    expect(urls.providerUrls.map((u) => u.provider)).toEqual(["oauth2"]);
    await expect(client.getProvider({ providerId: p.id }, { headers: { authorization: `Bearer ${other.token}` } })).rejects.toMatchObject({
      code: 5, // NotFound
    });
  });
});
