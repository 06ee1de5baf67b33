import { randomUUID } from "node:crypto";
import type { BootstrapResult } from "../../../src/domain/tenancy/bootstrap.js";
import type { TestApp } from "../../support/app.js";
import { call } from "../../support/http.js";
import { seedEnvironmentSettings } from "./seed-environment-settings.js";
import { seedNameServicesArea } from "./seed-name-services.js";
import { seedSignInSettings } from "./seed-sign-in.js";
import { seedWaas } from "./seed-waas.js";
import { seedWebhooks } from "./seed-webhooks.js";

/** Ids of one resource of each kind in a tenant, keyed by the proto name of the path variable. */
export type SeededIds = Record<string, string>;

async function ok(res: Promise<{ status: number; body: any; text: string }>) {
  const r = await res;
  if (r.status >= 300) throw new Error(`seeding failed: ${r.status} ${r.text}`);
  return r.body;
}

/**
 * One resource of every kind in the tenant's sandbox environment and organization, made through the API
 * where the API can make it (sessions and visits come from the SDK surface, so they are inserted).
 */
export async function seedTenant(app: TestApp, t: BootstrapResult): Promise<SeededIds> {
  const ids: SeededIds = {};
  const env = t.environmentId;
  const post = (path: string, body: unknown) => ok(call(app.baseUrl, "POST", path, { token: t.token, body }));

  const embedded = await post(`/environments/${env}/embeddedWallets`, { identifier: `seed-${randomUUID()}@example.com`, type: "email" });
  ids.user_id = embedded.user.id;
  ids.wallet_id = embedded.user.wallets[0].id;

  const withOauth = await post(`/environments/${env}/users`, { oauthAccounts: [{ provider: "oidc", accountId: randomUUID(), accessToken: "seed-access-token" }] });
  ids.oauth_account_id = withOauth.user.verifiedCredentials.find((c: any) => c.oauth_provider === "oidc").id;

  ids.session_id = randomUUID();
  await app.db.none("INSERT INTO sessions (id, environment_id, user_id, ip_address, user_agent) VALUES ($1, $2, $3, '127.0.0.1', 'seed')", [
    ids.session_id,
    env,
    ids.user_id,
  ]);

  const field = await post(`/environments/${env}/custom/fields`, { name: `seed_${randomUUID().slice(0, 8)}`, label: "Seed" });
  ids.custom_field_id = (field.customField ?? field).id;

  const invite = await ok(call(app.baseUrl, "POST", `/organizations/${t.organizationId}/invites`, {
    token: t.token,
    body: { email: `invitee-${randomUUID()}@example.com`, role: "developer" },
  }));
  ids.invite_id = (invite.invite ?? invite).id;

  const exported = await post(`/environments/${env}/exports`, { format: "json", model: "users" });
  ids.export_id = (exported.export ?? exported).id;

  await post(`/environments/${env}/waas/policies`, { rulesToAdd: [{ name: "seed", ruleType: "allow", chain: "EVM" }] });

  Object.assign(ids, await seedEnvironmentSettings(app, t));
  Object.assign(ids, await seedSignInSettings(app, t));
  Object.assign(ids, await seedNameServicesArea(app, t));
  Object.assign(ids, await seedWaas(app, t, ids.wallet_id));
  Object.assign(ids, await seedWebhooks(app, t));
  return ids;
}
