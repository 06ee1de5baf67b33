import { randomUUID } from "node:crypto";
import type { BootstrapResult } from "../../../src/domain/tenancy/bootstrap.js";
import type { TestApp } from "../../support/app.js";
import { call } from "../../support/http.js";

/**
 * One resource of each kind of the environment-settings area in a tenant, created over REST, keyed by the
 * proto name of the path variable (for seedTenant in seed-tenant.ts). Also creates the singletons that GET
 * operations need to answer 200 (test account, SSO provider).
 */
export async function seedEnvironmentSettings(app: TestApp, t: BootstrapResult): Promise<Record<string, string>> {
  const tag = randomUUID().slice(0, 8);
  const post = async (path: string, body: unknown) => {
    const res = await call(app.baseUrl, "POST", path, { token: t.token, body });
    if (res.status !== 201) throw new Error(`seeding ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const origin = await post(`/environments/${t.environmentId}/origins`, { origin: `https://seed-${tag}.example.com` });
  const deeplink = await post(`/environments/${t.environmentId}/deeplinkUrls`, { url: `seed${tag}://callback` });
  const hostname = await post(`/environments/${t.environmentId}/custom/hostnames`, { hostname: `auth-${tag}.seed.example` });
  await post(`/environments/${t.environmentId}/test/account`, { email: `reviewer-${tag}@example.com` });
  const sso = await post(`/organizations/${t.organizationId}/ssoProvider`, {
    protocol: "oidc",
    issuer: "https://idp.example.com",
    clientId: "seed",
    clientSecret: "seed-secret",
    domains: [`seed-${tag}.example`],
  });
  return { origin_id: origin.origin.id, deeplink_url_id: deeplink.id, custom_hostname_id: hostname.id, sso_provider_id: sso.id };
}
