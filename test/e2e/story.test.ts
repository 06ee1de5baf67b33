import { randomUUID } from "node:crypto";
import { privateKeyToAddress, generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { waitFor } from "../support/poll.js";

/**
 * A developer's first day, over REST only: bootstrap, invite a teammate who accepts, configure sign-in
 * (an OpenID Connect provider and an allowlist), create users and wallets, export the users, delete a
 * wallet and recover it; then read the audit trail that all of it left.
 */

let app: TestApp;
let owner: BootstrapResult;
let teammate: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  owner = await app.bootstrap({ ownerEmail: `owner-${randomUUID()}@example.com` });
  teammate = await app.bootstrap({ ownerEmail: `teammate-${randomUUID()}@example.com` });
}, 60_000);
afterAll(() => app?.stop());

async function api(method: string, path: string, token: string, body?: unknown, expected?: number) {
  const res = await call(app.baseUrl, method, path, { token, body });
  if (expected !== undefined) expect(res.status, `${method} ${path}: ${res.text}`).toBe(expected);
  return res.body;
}

it("runs the whole story", async () => {
  const env = owner.environmentId;

  // The owner invites a teammate as developer; the teammate accepts with their own member token.
  const teammateEmail = (await app.db.one("SELECT email FROM accounts WHERE id = $1", [teammate.accountId])).email;
  const invite = await api("POST", `/organizations/${owner.organizationId}/invites`, owner.memberToken, { email: teammateEmail, role: "developer" }, 201);
  expect((await api("GET", "/invites", teammate.memberToken, undefined, 200)).invites.map((i: any) => i.id)).toContain(invite.id);
  await api("PUT", `/invites/${invite.id}`, teammate.memberToken, { status: "accepted" }, 200);
  const members = await api("GET", `/organizations/${owner.organizationId}/members`, owner.memberToken, undefined, 200);
  expect(members.members.map((m: any) => m.role).sort()).toEqual(["developer", "owner"]);

  // The teammate now works in the owner's environment with their member token, and configures sign-in.
  const provider = await api("POST", `/environments/${env}/settings/providers`, teammate.memberToken, {
    provider: "oidc",
    clientId: "story-client",
    clientSecret: "story-secret",
    authorizationUrl: "https://id.example.org/authorize",
  }, 201);
  const urls = await api("GET", `/environments/${env}/settings/providers/urls`, teammate.memberToken, undefined, 200);
  expect(urls.providerUrls.find((u: any) => u.providerId === provider.id).redirectUrl).toContain(`/sdk/${env}/providers/oidc/redirect`);
  const allowlist = await api("POST", `/environments/${env}/allowlists`, teammate.memberToken, { name: "Beta testers", outcome: "siteAccess" }, 201);
  await api("POST", `/allowlists/${allowlist.id}/entries`, teammate.memberToken, { email: "alice@example.com" }, 201);
  await api("PUT", `/allowlists/${allowlist.id}/enable`, teammate.memberToken, undefined, 200);
  // A developer cannot manage people.
  expect((await call(app.baseUrl, "POST", `/organizations/${owner.organizationId}/invites`, { token: teammate.memberToken, body: { email: "x@example.com", role: "viewer" } })).status).toBe(403);

  // Users and wallets, with the environment token.
  const alice = (await api("POST", `/environments/${env}/users`, owner.token, { email: "alice@example.com", firstName: "Alice" }, 201)).user;
  const address = privateKeyToAddress(generatePrivateKey());
  const wallet = await api("POST", `/environments/${env}/users/${alice.id}/wallets`, owner.token, { chain: "EVM", publicWalletAddress: address, walletName: "metamask", walletProvider: "browserExtension" }, 201);
  const bob = (await api("POST", `/environments/${env}/embeddedWallets`, owner.token, { identifier: "bob@example.com", type: "email" }, 201)).user;
  expect(bob.wallets).toHaveLength(1);
  const listed = await api("GET", `/environments/${env}/users?orderBy=email:asc`, owner.token, undefined, 200);
  expect(listed.count).toBe(2);
  expect(listed.users.map((u: any) => u.email)).toEqual(["alice@example.com", "bob@example.com"]);

  // Export the users and download the file.
  const exp = (await api("POST", `/environments/${env}/exports`, owner.token, { format: "json", model: "users" }, 201));
  const exportNow = async () => (await api("GET", `/environments/${env}/exports/${exp.id}`, owner.token, undefined, 200)).status;
  await waitFor("the export to complete", exportNow, { until: (status) => status === "completed" });
  const file = await fetch(`${app.baseUrl}/api/v0/environments/${env}/exports/${exp.id}/download`, { headers: { authorization: `Bearer ${owner.token}` } });
  expect(file.status).toBe(200);
  const rows = (await file.json()) as any[];
  expect(rows.map((r) => r.email).sort()).toEqual(["alice@example.com", "bob@example.com"]);
  expect(rows.find((r) => r.email === "alice@example.com").walletAddresses).toEqual([{ chain: "EVM", address }]);

  // Delete Alice's wallet, then recover it through the recovery workflow.
  await api("DELETE", `/environments/${env}/wallets/${wallet.id}`, owner.token, undefined, 204);
  expect((await api("GET", `/environments/${env}/users/${alice.id}/wallets`, owner.token, undefined, 200)).wallets).toHaveLength(0);
  const recovered = await api("POST", `/environments/${env}/wallets/recover`, owner.token, { userId: alice.id }, 200);
  expect(recovered.data.recoveredWallets).toBe(1);
  expect((await api("GET", `/environments/${env}/users/${alice.id}/wallets`, owner.token, undefined, 200)).wallets.map((w: any) => w.id)).toEqual([wallet.id]);

  // The audit trail tells the same story, with who did what.
  const trail = await api("GET", `/environments/${env}/auditLogs?limit=100`, owner.token, undefined, 200);
  const actions = trail.auditLogs.map((a: any) => a.action);
  for (const a of ["provider.created", "allowlist.created", "allowlist.enabled", "user.created", "wallet.created", "wallet.deleted", "wallet.recovered", "export.created"])
    expect(actions, a).toContain(a);
  const byTeammate = trail.auditLogs.find((a: any) => a.action === "provider.created");
  expect(byTeammate.actor.accountId).toBe(teammate.accountId);
  expect(JSON.stringify(trail)).not.toContain("story-secret");
  const orgTrail = await api("GET", `/organizations/${owner.organizationId}/auditLogs`, owner.memberToken, undefined, 200);
  expect(orgTrail.auditLogs.map((a: any) => a.action)).toContain("invite.created");
}, 120_000);
