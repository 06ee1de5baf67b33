import { randomUUID } from "node:crypto";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { SsoProviderCheckResponseTypeEnum } from "@dynamic-labs/sdk-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkSsoService } from "../../src/gen/sigil/sso/v0/sdk_sso_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";

/**
 * checkSsoProvider through the published client: a public call that tells a sign-in page whether an
 * e-mail's domain signs in through the SSO provider of the environment's organization (type sso) or with
 * a one-time code (type otp). Domains are unique across organizations, so each test claims its own.
 */
let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;
let domain: string;
let providerId: string;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: `sso-check-${randomUUID()}@example.com` });
  other = await app.bootstrap({ ownerEmail: `sso-check-other-${randomUUID()}@example.com` });
  domain = `acme-${randomUUID().slice(0, 8)}.example`;
  providerId = await ssoProvider(t, [domain, `corp.${domain}`]);
});
afterAll(() => app?.stop());

async function ssoProvider(x: BootstrapResult, domains: string[]) {
  const body = { protocol: "oidc", issuer: "https://idp.acme.example", clientId: "cid", clientSecret: "secret-value", domains };
  const r = await call(app.baseUrl, "POST", `/organizations/${x.organizationId}/ssoProvider`, { token: x.token, body });
  expect(r.status, r.text).toBe(201);
  return r.body.id as string;
}

const check = (environmentId: string, email: string) => sdkFor(app.baseUrl).checkSsoProvider({ environmentId, ssoProviderCheckRequest: { email } });

describe("checkSsoProvider", () => {
  it("answers sso with the provider for an address in one of its domains, case-insensitively", async () => {
    for (const email of [`ada@${domain}`, `Ada.Lovelace@${domain.toUpperCase()}`, `ops@corp.${domain}`])
      expect(await check(t.environmentId, email), email).toEqual({ type: SsoProviderCheckResponseTypeEnum.Sso, provider: "oidc", id: providerId, ssoAuthUrl: undefined });
    // Every environment of the organization is served by its provider.
    expect((await check(t.liveEnvironmentId, `ada@${domain}`)).type).toBe("sso");
    // The raw answer carries no empty fields and no configuration of the provider.
    const raw = await call(app.baseUrl, "POST", `/sdk/${t.environmentId}/ssoProvider`, { body: { email: `ada@${domain}` } });
    expect(raw.status, raw.text).toBe(200);
    expect(raw.body).toEqual({ type: "sso", provider: "oidc", id: providerId });
  });

  it("answers otp for an unknown domain, a subdomain of a claimed one or a name that merely ends like one, and another organization's domain", async () => {
    for (const email of [`ada@unknown-${randomUUID().slice(0, 8)}.example`, `ada@eu.${domain}`, `ada@x${domain}`])
      expect(await check(t.environmentId, email), email).toEqual({ type: SsoProviderCheckResponseTypeEnum.Otp });
    // The other organization's environments never learn of this organization's provider.
    expect(await check(other.environmentId, `ada@${domain}`)).toEqual({ type: "otp" });
    const raw = await call(app.baseUrl, "POST", `/sdk/${other.environmentId}/ssoProvider`, { body: { email: `ada@${domain}` } });
    expect(raw.body).toEqual({ type: "otp" });
    // Once the provider is gone, the domain signs in with a code.
    const y = await app.bootstrap({ ownerEmail: `sso-check-gone-${randomUUID()}@example.com` });
    const d = `gone-${randomUUID().slice(0, 8)}.example`;
    const id = await ssoProvider(y, [d]);
    expect((await check(y.environmentId, `ada@${d}`)).type).toBe("sso");
    expect((await call(app.baseUrl, "DELETE", `/organizations/${y.organizationId}/ssoProvider/${id}`, { token: y.token })).status).toBe(204);
    expect(await check(y.environmentId, `ada@${d}`)).toEqual({ type: "otp" });
  });

  it("refuses a malformed or missing e-mail with 400 validation_error, and an unknown environment with 404", async () => {
    for (const email of ["", "not-an-email", "ada@", "@acme.example", `"ada"@${domain}`, "ada@[127.0.0.1]", `${"a".repeat(250)}@x.example`]) {
      const r = await refused(check(t.environmentId, email));
      expect(r.status, email).toBe(400);
      expect(r.body).toMatchObject({ code: "validation_error", error: expect.stringContaining("email"), payload: { errors: expect.arrayContaining([expect.objectContaining({ field: "email" })]) } });
    }
    expect((await call(app.baseUrl, "POST", `/sdk/${t.environmentId}/ssoProvider`, { body: {} })).status).toBe(400);
    expect((await refused(check(randomUUID(), `ada@${domain}`))).status).toBe(404);
    expect((await refused(check("not-a-uuid", `ada@${domain}`))).status).toBe(400);
  });

  it("is counted against the SDK rate limit per client address", async () => {
    const limited = await startTestApp({ sdkRateLimits: { perAddressPer10s: 3, signInPerAddressPerMinute: 0 } });
    try {
      // Each test app has a database of its own: a tenant of this one.
      const x = await limited.bootstrap({ ownerEmail: `sso-check-limited-${randomUUID()}@example.com` });
      const ask = () => call(limited.baseUrl, "POST", `/sdk/${x.environmentId}/ssoProvider`, { body: { email: "ada@acme.example" } });
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await ask()).status);
      expect(statuses, JSON.stringify(statuses)).toEqual([200, 200, 200, 429]);
      const over = await ask();
      expect(over.body).toMatchObject({ code: "rate_limited" });
      expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    } finally {
      await limited.stop();
    }
  });

  it("answers over gRPC too", async () => {
    const client = createClient(SdkSsoService, createGrpcTransport({ baseUrl: app.baseUrl }));
    expect((await client.checkSsoProvider({ environmentId: t.environmentId, email: `ada@${domain}` })).check).toMatchObject({ type: "sso", provider: "oidc", id: providerId });
    expect((await client.checkSsoProvider({ environmentId: other.environmentId, email: `ada@${domain}` })).check).toMatchObject({ type: "otp", provider: "", id: "" });
    const err = await client.checkSsoProvider({ environmentId: t.environmentId, email: "nope" }).catch((e) => ConnectError.from(e));
    expect((err as ConnectError).code).toBe(Code.InvalidArgument);
  });
});
