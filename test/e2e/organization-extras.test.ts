import { generateKeyPairSync, randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BillingService } from "../../src/gen/sigil/billing/v0/billing_service_pb.js";
import { SsoProvidersService } from "../../src/gen/sigil/sso/v0/sso_providers_service_pb.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { ssoClientSecretAad } from "../../src/domain/sso/service.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MISSING = "00000000-0000-4000-8000-000000000000";

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: `${randomUUID()}@example.com` });
  other = await app.bootstrap({ ownerEmail: `${randomUUID()}@example.com` });
});
afterAll(() => app?.stop());

const audit = (resourceId: string) => app.db.any("SELECT * FROM audit_log WHERE resource_id = $1 ORDER BY created_at", [resourceId]);
const subscriptionRow = (organizationId: string) => app.db.oneOrNone("SELECT * FROM billing_subscriptions WHERE organization_id = $1", [organizationId]);

function expectError(res: { status: number; body: any; text: string }, status: number, code?: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toMatchObject({ error: expect.any(String), code: code ?? expect.any(String) });
}

/** A syntactically valid PEM certificate block (the service checks the PEM shape, not the chain). */
const CERT = `-----BEGIN CERTIFICATE-----\n${Buffer.from(generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "der" })).toString("base64")}\n-----END CERTIFICATE-----`;

describe("billing subscription", () => {
  const base = () => `/organizations/${t.organizationId}/billing`;

  it("reads the default plan without storing anything", async () => {
    const res = await call(app.baseUrl, "GET", `${base()}/subscription`, { token: t.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      organizationId: t.organizationId,
      plan: { type: "free", name: "Free", monthlyPriceCents: 0, currency: "USD", monthlyActiveUsers: 1000 },
      status: "active",
      coupon: null,
      planChangedAt: null,
      // The published client's BillingSubscription fields.
      planType: "free",
      hasPaymentMethod: false,
      inTrial: false,
      scope: ["environment"],
      version: "2024-01",
    });
    expect(await subscriptionRow(t.organizationId)).toBeNull();
  });

  it("refuses coupons on the free plan and unknown plans or coupons, changing nothing", async () => {
    expectError(await call(app.baseUrl, "PUT", `${base()}/subscription/coupon`, { token: t.token, body: { code: "WELCOME20" } }), 422, "coupon_not_applicable");
    expectError(await call(app.baseUrl, "PUT", `${base()}/subscription/coupon`, { token: t.token, body: { code: "NOPE" } }), 422, "invalid_coupon");
    expectError(await call(app.baseUrl, "PUT", `${base()}/subscription/coupon`, { token: t.token, body: { code: "LAUNCH2024" } }), 422, "coupon_expired");
    expectError(await call(app.baseUrl, "PUT", `${base()}/subscription/coupon`, { token: t.token, body: {} }), 400);
    expectError(await call(app.baseUrl, "PUT", `${base()}/upgrade`, { token: t.token, body: { planType: "platinum" } }), 400, "invalid_plan");
    expectError(await call(app.baseUrl, "PUT", `${base()}/upgrade`, { token: t.token, body: { planType: "free" } }), 422, "plan_already_active");
    expectError(await call(app.baseUrl, "PUT", `${base()}/upgrade`, { token: t.token, body: { planType: "enterprise" } }), 422, "plan_not_self_serve");
    expect(await subscriptionRow(t.organizationId)).toBeNull();
    expect(await audit(t.organizationId)).toHaveLength(0);
  });

  it("upgrades, applies a coupon, refuses downgrades, and audits", async () => {
    const up = await call(app.baseUrl, "PUT", `${base()}/upgrade`, { token: t.token, body: { planType: "starter" } });
    expect(up.status, up.text).toBe(200);
    expect(up.body).toMatchObject({ plan: { type: "starter" }, coupon: null, planChangedAt: expect.any(String) });
    const coupon = await call(app.baseUrl, "PUT", `${base()}/subscription/coupon`, { token: t.token, body: { code: "startup50" } });
    expect(coupon.status, coupon.text).toBe(200);
    expect(coupon.body.coupon).toMatchObject({ code: "STARTUP50", percentOff: 50, durationMonths: 12, appliedAt: expect.any(String) });
    expectError(await call(app.baseUrl, "PUT", `${base()}/subscription/coupon`, { token: t.token, body: { code: "STARTUP50" } }), 422, "coupon_already_applied");
    // STARTUP50 is for starter only: upgrading to pro drops it.
    const pro = await call(app.baseUrl, "PUT", `${base()}/upgrade`, { token: t.memberToken, body: { planType: "pro" } });
    expect(pro.status, pro.text).toBe(200);
    expect(pro.body).toMatchObject({ plan: { type: "pro", monthlyPriceCents: 49900 }, coupon: null });
    expectError(await call(app.baseUrl, "PUT", `${base()}/upgrade`, { token: t.token, body: { planType: "starter" } }), 422, "downgrade_not_supported");
    const read = await call(app.baseUrl, "GET", `${base()}/subscription`, { token: t.token });
    expect(read.body.plan.type).toBe("pro");
    const rows = await audit(t.organizationId);
    expect(rows.map((r) => r.action)).toEqual(["billing_subscription.upgraded", "billing_subscription.coupon_applied", "billing_subscription.upgraded"]);
    expect(rows[2].changes).toEqual({ before: { plan: "starter", couponCode: "STARTUP50" }, after: { plan: "pro", couponCode: null } });
    expect(rows[0].environment_id).toBeNull();
  });

  it("takes the published client's forms: an upgrade without a body moves one plan up, `coupon` names the code", async () => {
    const x = await app.bootstrap({ ownerEmail: `billing-client-${Date.now()}@example.com` });
    const path = `/organizations/${x.organizationId}/billing`;
    const up = await call(app.baseUrl, "PUT", `${path}/upgrade`, { token: x.memberToken });
    expect(up.status, up.text).toBe(200);
    // starter is the client's "standard".
    expect(up.body).toMatchObject({ plan: { type: "starter" }, planType: "standard" });
    const coupon = await call(app.baseUrl, "PUT", `${path}/subscription/coupon`, { token: x.memberToken, body: { coupon: "WELCOME20" } });
    expect(coupon.status, coupon.text).toBe(200);
    expect(coupon.body.coupon).toMatchObject({ code: "WELCOME20" });
    const named = await call(app.baseUrl, "PUT", `${path}/upgrade`, { token: x.memberToken, body: { planType: "advanced" } });
    expect(named.status, named.text).toBe(200);
    expect(named.body).toMatchObject({ plan: { type: "pro" }, planType: "advanced" });
    // Pro is the highest self-serve plan: nothing above it.
    expectError(await call(app.baseUrl, "PUT", `${path}/upgrade`, { token: x.memberToken }), 422, "no_higher_plan");
  });

  it("other organizations get 404 and developers 403", async () => {
    for (const token of [other.token, other.memberToken]) {
      expectError(await call(app.baseUrl, "GET", `${base()}/subscription`, { token }), 404);
      expectError(await call(app.baseUrl, "PUT", `${base()}/upgrade`, { token, body: { planType: "pro" } }), 404);
      expectError(await call(app.baseUrl, "PUT", `${base()}/subscription/coupon`, { token, body: { code: "WELCOME20" } }), 404);
    }
    expectError(await call(app.baseUrl, "GET", `/organizations/not-a-uuid/billing/subscription`, { token: t.token }), 400);
    await app.db.none("UPDATE members SET role = 'developer' WHERE organization_id = $1 AND account_id = $2", [other.organizationId, other.accountId]);
    try {
      const path = `/organizations/${other.organizationId}/billing/upgrade`;
      expectError(await call(app.baseUrl, "PUT", path, { token: other.memberToken, body: { planType: "pro" } }), 403);
      expect((await call(app.baseUrl, "GET", `/organizations/${other.organizationId}/billing/subscription`, { token: other.memberToken })).status).toBe(200);
    } finally {
      await app.db.none("UPDATE members SET role = 'owner' WHERE organization_id = $1 AND account_id = $2", [other.organizationId, other.accountId]);
    }
    expect(await subscriptionRow(other.organizationId)).toBeNull();
  });

  it("reads and upgrades over gRPC", async () => {
    const client = createClient(BillingService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const headers = { authorization: `Bearer ${other.token}` };
    const got = await client.getSubscription({ organizationId: other.organizationId }, { headers });
    expect(got.subscription?.plan?.type).toBe("free");
    const up = await client.upgradeSubscription({ organizationId: other.organizationId, planType: "pro" }, { headers });
    expect(up.subscription?.plan?.type).toBe("pro");
    expect((await subscriptionRow(other.organizationId))!.plan).toBe("pro");
  });
});

describe("SSO provider in the published client's form", () => {
  it("creates (okta is OIDC, ssoDomain the issuer's host, emailDomain a domain), updates partially and answers the client's fields", async () => {
    const x = await app.bootstrap({ ownerEmail: `sso-client-${Date.now()}@example.com` });
    const path = `/organizations/${x.organizationId}/ssoProvider`;
    const body = { clientId: "cid", clientSecret: "client-secret-value", ssoDomain: "acme.okta.example", emailDomain: "acme-client.example", provider: "okta" };
    expectError(await call(app.baseUrl, "POST", path, { token: x.memberToken, body: { ...body, provider: "ldap" } }), 400);
    const res = await call(app.baseUrl, "POST", path, { token: x.memberToken, body });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      protocol: "oidc",
      provider: "oidc",
      issuer: "https://acme.okta.example",
      ssoDomain: "acme.okta.example",
      emailDomain: "acme-client.example",
      domains: ["acme-client.example"],
      maskedClientSecret: "********",
      enforceOnlySSO: false,
    });
    expect(res.text).not.toContain("client-secret-value");
    const upd = await call(app.baseUrl, "PUT", `${path}/${res.body.id}`, { token: x.memberToken, body: { enforceOnlySSO: true } });
    expect(upd.status, upd.text).toBe(200);
    expect(upd.body).toMatchObject({ enforceOnlySSO: true, enforce: true, issuer: "https://acme.okta.example", clientId: "cid", domains: ["acme-client.example"] });
    expect(upd.body.maskedClientSecret).toBe("********");
  });
});

describe("SSO provider", () => {
  const base = () => `/organizations/${t.organizationId}/ssoProvider`;
  const oidc = { protocol: "oidc", issuer: "https://idp.example.com", clientId: "sigil-client", clientSecret: "very-secret-value", enforce: true, domains: ["Example.com", "corp.example.com"] };

  it("creates an OIDC provider with a sealed secret that is never returned, and audits", async () => {
    expectError(await call(app.baseUrl, "GET", base(), { token: t.token }), 404);
    const res = await call(app.baseUrl, "POST", base(), { token: t.token, body: oidc });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(UUID),
      organizationId: t.organizationId,
      protocol: "oidc",
      issuer: "https://idp.example.com",
      clientId: "sigil-client",
      clientSecretSet: true,
      enforce: true,
      domains: ["corp.example.com", "example.com"],
    });
    expect(res.body.redirectUrl).toBe(`http://localhost:8080/api/v0/sso/${res.body.id}/callback`);
    expect(res.body.clientSecret).toBeUndefined();
    expect(res.text).not.toContain("very-secret-value");
    const read = await call(app.baseUrl, "GET", base(), { token: t.token });
    expect(read.body).toEqual(res.body);
    expect(read.text).not.toContain("very-secret-value");
    const row = await app.db.one("SELECT * FROM sso_providers WHERE id = $1", [res.body.id]);
    expect(row.client_secret_sealed).not.toContain("very-secret-value");
    expect(app.deps.sealer.open(row.client_secret_sealed, ssoClientSecretAad(res.body.id))).toBe("very-secret-value");
    const rows = await audit(res.body.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ action: "sso_provider.created", organization_id: t.organizationId, environment_id: null });
    expect(JSON.stringify(rows[0].changes)).not.toContain("very-secret-value");
  });

  it("allows one provider per organization and one organization per domain, changing nothing", async () => {
    expectError(await call(app.baseUrl, "POST", base(), { token: t.token, body: { ...oidc, enforce: false, domains: [] } }), 409, "sso_provider_already_exists");
    const otherBase = `/organizations/${other.organizationId}/ssoProvider`;
    expectError(await call(app.baseUrl, "POST", otherBase, { token: other.token, body: { ...oidc, domains: ["EXAMPLE.com"] } }), 409, "sso_domain_already_claimed");
    const bad: [Record<string, unknown>, number, string?][] = [
      [{ ...oidc, protocol: "ldap" }, 400],
      [{ ...oidc, issuer: "" }, 400, "issuer_required"],
      [{ ...oidc, clientSecret: "" }, 400, "client_secret_required"],
      [{ ...oidc, issuer: "http://idp.other.example" }, 400, "invalid_url"],
      [{ ...oidc, issuer: "not a url" }, 400],
      [{ ...oidc, domains: ["not a domain"] }, 400, "invalid_domain"],
      [{ ...oidc, domains: [] }, 422, "domains_required_for_enforce"],
      [{ protocol: "saml", entryPoint: "https://idp.example.com/sso", domains: [] }, 400, "certificate_required"],
      [{ protocol: "saml", entryPoint: "https://idp.example.com/sso", certificate: "not pem", domains: [] }, 400, "invalid_certificate"],
    ];
    for (const [body, status, code] of bad) expectError(await call(app.baseUrl, "POST", otherBase, { token: other.token, body }), status, code);
    expect(await app.db.oneOrNone("SELECT 1 FROM sso_providers WHERE organization_id = $1", [other.organizationId])).toBeNull();
    expect((await app.db.one("SELECT count(*)::int AS n FROM sso_provider_domains WHERE organization_id = $1", [t.organizationId])).n).toBe(2);
  });

  it("updates (keeping the secret when omitted) and switches protocol", async () => {
    const { id } = (await call(app.baseUrl, "GET", base(), { token: t.token })).body;
    const sealedBefore = (await app.db.one("SELECT client_secret_sealed FROM sso_providers WHERE id = $1", [id])).client_secret_sealed;
    const res = await call(app.baseUrl, "PUT", `${base()}/${id}`, {
      token: t.memberToken,
      body: { protocol: "oidc", issuer: "https://idp2.example.com", clientId: "new-client", enforce: false, domains: ["example.com"] },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ issuer: "https://idp2.example.com", clientId: "new-client", clientSecretSet: true, enforce: false, domains: ["example.com"] });
    expect((await app.db.one("SELECT client_secret_sealed FROM sso_providers WHERE id = $1", [id])).client_secret_sealed).toBe(sealedBefore);

    const saml = await call(app.baseUrl, "PUT", `${base()}/${id}`, {
      token: t.token,
      body: { protocol: "saml", entryPoint: "https://idp.example.com/saml/sso", certificate: CERT, domains: ["example.com"], enforce: true },
    });
    expect(saml.status, saml.text).toBe(200);
    expect(saml.body).toMatchObject({ protocol: "saml", entryPoint: "https://idp.example.com/saml/sso", clientSecretSet: false, certificate: CERT, enforce: true });
    expect(saml.body.issuer).toBeUndefined();
    expect(saml.body.clientId).toBeUndefined();
    expect((await audit(id)).map((r) => r.action)).toEqual(["sso_provider.created", "sso_provider.updated", "sso_provider.updated"]);

    // Bad input and other tenants change nothing.
    const snapshot = await app.db.one("SELECT * FROM sso_providers WHERE id = $1", [id]);
    expectError(await call(app.baseUrl, "PUT", `${base()}/${id}`, { token: t.token, body: { protocol: "oidc", issuer: "https://x.example.com", clientId: "c", domains: [] } }), 400, "client_secret_required");
    expectError(await call(app.baseUrl, "PUT", `${base()}/${id}`, { token: other.token, body: { protocol: "saml", entryPoint: "https://e.example.com", certificate: CERT } }), 404);
    expectError(await call(app.baseUrl, "PUT", `/organizations/${other.organizationId}/ssoProvider/${id}`, { token: other.token, body: { protocol: "saml", entryPoint: "https://e.example.com", certificate: CERT } }), 404);
    expectError(await call(app.baseUrl, "PUT", `${base()}/${MISSING}`, { token: t.token, body: { protocol: "saml", entryPoint: "https://e.example.com", certificate: CERT } }), 404);
    expect(await app.db.one("SELECT * FROM sso_providers WHERE id = $1", [id])).toEqual(snapshot);
  });

  it("deletes; other tenants get 404", async () => {
    const { id } = (await call(app.baseUrl, "GET", base(), { token: t.token })).body;
    expectError(await call(app.baseUrl, "DELETE", `${base()}/${id}`, { token: other.memberToken }), 404);
    expectError(await call(app.baseUrl, "DELETE", `/organizations/${other.organizationId}/ssoProvider/${id}`, { token: other.token }), 404);
    expectError(await call(app.baseUrl, "GET", base(), { token: other.token }), 404);
    const del = await call(app.baseUrl, "DELETE", `${base()}/${id}`, { token: t.token });
    expect(del.status).toBe(204);
    expect(await app.db.oneOrNone("SELECT 1 FROM sso_providers WHERE id = $1", [id])).toBeNull();
    expect((await app.db.one("SELECT count(*)::int AS n FROM sso_provider_domains WHERE sso_provider_id = $1", [id])).n).toBe(0);
    expect((await audit(id)).at(-1).action).toBe("sso_provider.deleted");
    expectError(await call(app.baseUrl, "GET", base(), { token: t.token }), 404);
  });

  it("creates and reads over gRPC; the domain is free again after deletion", async () => {
    const client = createClient(SsoProvidersService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const headers = { authorization: `Bearer ${other.token}` };
    const created = await client.createSsoProvider({ organizationId: other.organizationId, ...oidc, domains: ["example.com"] }, { headers });
    expect(created.ssoProvider?.clientSecret).toBe("");
    expect(created.ssoProvider?.clientSecretSet).toBe(true);
    const got = await client.getSsoProvider({ organizationId: other.organizationId }, { headers });
    expect(got.ssoProvider?.id).toBe(created.ssoProvider?.id);
    expect(got.ssoProvider?.domains).toEqual(["example.com"]);
  });
});

describe("billing subscription status", () => {
  // No API sets a trial or a cancellation yet (the operator does, in the row); the status reads them.
  it("is derived from the stored trial end and cancellation, not fixed", async () => {
    const x = await app.bootstrap({ ownerEmail: `billing-status-${Date.now()}@example.com` });
    const read = async () => {
      const res = await call(app.baseUrl, "GET", `/organizations/${x.organizationId}/billing/subscription`, { token: x.token });
      expect(res.status, res.text).toBe(200);
      // The published client's flag says the same as the status.
      expect(res.body.inTrial).toBe(res.body.status === "trialing");
      return res.body.status as string;
    };
    const upgraded = await call(app.baseUrl, "PUT", `/organizations/${x.organizationId}/billing/upgrade`, { token: x.token, body: { planType: "starter" } });
    expect(upgraded.status, upgraded.text).toBe(200);
    expect(await read()).toBe("active");

    const set = (column: "trial_ends_at" | "canceled_at", interval: string | null) =>
      app.db.none(`UPDATE billing_subscriptions SET ${column} = ${interval === null ? "NULL" : `now() + $2::interval`} WHERE organization_id = $1`, [
        x.organizationId,
        interval,
      ]);
    await set("trial_ends_at", "14 days");
    expect(await read()).toBe("trialing");
    await set("trial_ends_at", "-1 day"); // the trial is over: the plan stays active
    expect(await read()).toBe("active");
    await set("canceled_at", "1 day"); // cancelled at the end of the period: still active until then
    expect(await read()).toBe("active");
    await set("canceled_at", "-1 second");
    expect(await read()).toBe("canceled");
  });
});
