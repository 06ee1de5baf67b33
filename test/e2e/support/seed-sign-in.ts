import type { BootstrapResult } from "../../../src/domain/tenancy/bootstrap.js";
import type { TestApp } from "../../support/app.js";
import { call } from "../../support/http.js";

/**
 * One resource of each kind of the providers and sign-in settings area in a tenant, created over REST,
 * keyed by the proto name of the path variable (for seedTenant in seed-tenant.ts).
 */
export async function seedSignInSettings(app: TestApp, t: BootstrapResult): Promise<Record<string, string>> {
  const post = async (path: string, body: unknown) => {
    const res = await call(app.baseUrl, "POST", path, { token: t.token, body });
    if (res.status !== 201) throw new Error(`seeding ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const provider = await post(`/environments/${t.environmentId}/settings/providers`, { provider: "magicLink" });
  const allowlist = await post(`/environments/${t.environmentId}/allowlists`, { name: "seed", outcome: "siteAccess" });
  const entry = await post(`/allowlists/${allowlist.id}/entries`, { email: "seed@example.com" });
  const gate = await post(`/environments/${t.environmentId}/gates`, {
    name: "seed",
    outcome: "siteAccess",
    rules: [{ type: "nft", chain: "eip155:1", address: { contractAddress: "0x52908400098527886E0F7030069857D2E4169EE7" } }],
  });
  const exchange = await post(`/environments/${t.environmentId}/settings/exchanges`, {
    exchange: "commerce",
    apiKey: "seed-api-key-0001",
    apiSecret: "seed-api-secret-0001",
  });
  return {
    provider_id: provider.id,
    allowlist_id: allowlist.id,
    allowlist_entry_id: entry.id,
    gate_id: gate.id,
    exchange_id: exchange.id,
  };
}
