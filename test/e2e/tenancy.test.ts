import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { Configuration, MembersApi } from "@dynamic-labs/sdk-api";
import { SignJWT, importJWK, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MANAGEMENT_PERMISSIONS } from "../../src/domain/auth/permissions.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { MembersService } from "../../src/gen/sigil/members/v0/members_service_pb.js";
import { OrganizationsService } from "../../src/gen/sigil/organizations/v0/organizations_service_pb.js";
import { ProjectsService } from "../../src/gen/sigil/projects/v0/projects_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const email = (tag: string) => `${tag}-${randomUUID()}@example.com`;

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: email("owner"), organizationName: "Acme" });
  other = await app.bootstrap({ ownerEmail: email("other") });
}, 60_000);
afterAll(() => app?.stop());

const api = (method: string, path: string, token: string, body?: unknown) => call(app.baseUrl, method, path, { token, body });
const count = async (sql: string, params: unknown[] = []) => (await app.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).n;
const audits = (action: string, resourceId: string) =>
  app.db.any("SELECT * FROM audit_log WHERE action = $1 AND resource_id = $2 ORDER BY created_at", [action, resourceId]);

/** A new person: their own account (and member token) in a tenant of their own, then invited into t's organization. */
async function invitedMember(role: string, org = t) {
  const person = await app.bootstrap({ ownerEmail: email(role) });
  const inviteeEmail = (await app.db.one("SELECT email FROM accounts WHERE id = $1", [person.accountId])).email;
  const inv = await api("POST", `/organizations/${org.organizationId}/invites`, org.memberToken, { email: inviteeEmail, role });
  expect(inv.status, inv.text).toBe(201);
  const acc = await api("PUT", `/invites/${inv.body.id}`, person.memberToken, { status: "accepted" });
  expect(acc.status, acc.text).toBe(200);
  const member = await app.db.one("SELECT id FROM members WHERE organization_id = $1 AND account_id = $2", [org.organizationId, person.accountId]);
  return { person, memberId: member.id as string, email: inviteeEmail as string, inviteId: inv.body.id as string };
}

describe("organizations", () => {
  it("lists the account's organizations with its role; an environment token sees its own", async () => {
    const mine = await api("GET", "/organizations", t.memberToken);
    expect(mine.status).toBe(200);
    expect(mine.body.count).toBe(1);
    expect(mine.body.organizations).toEqual([expect.objectContaining({ id: t.organizationId, name: "Acme", role: "owner" })]);
    const viaEnv = await api("GET", "/organizations", t.token);
    expect(viaEnv.body.organizations.map((o: any) => o.id)).toEqual([t.organizationId]);
  });

  it("creates an organization owned by the calling account (201, audited); bad input changes nothing", async () => {
    const before = await count("organizations");
    for (const body of [{}, { name: "" }, { name: "x".repeat(256) }, { name: "ok", websiteUrl: "not a url" }]) {
      const res = await api("POST", "/organizations", t.memberToken, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
    const envToken = await api("POST", "/organizations", t.token, { name: "nope" });
    expect(envToken.status).toBe(403);
    expect(envToken.body.code).toBe("account_token_required");
    expect(await count("organizations")).toBe(before);

    const res = await api("POST", "/organizations", t.memberToken, { name: "Second", description: "d", websiteUrl: "https://second.example" });
    expect(res.status, res.text).toBe(201);
    // The published client's OrganizationResponse: {organization}.
    const created = res.body.organization;
    expect(created).toMatchObject({ name: "Second", description: "d", websiteUrl: "https://second.example", role: "owner" });
    expect(created.id).toMatch(UUID);
    const owner = await app.db.one("SELECT role FROM members WHERE organization_id = $1 AND account_id = $2", [created.id, t.accountId]);
    expect(owner.role).toBe("owner");
    expect(await audits("organization.created", created.id)).toHaveLength(1);
    const list = await api("GET", "/organizations", t.memberToken);
    expect(list.body.count).toBe(2);
    // The new organization is reachable with the same member token.
    expect((await api("GET", `/organizations/${created.id}`, t.memberToken)).status).toBe(200);
  });

  it("gets and updates an organization and its address (audited)", async () => {
    const got = await api("GET", `/organizations/${t.organizationId}`, t.token);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: t.organizationId, name: "Acme", role: "owner" });
    const upd = await api("PUT", `/organizations/${t.organizationId}`, t.memberToken, { description: "We make things" });
    expect(upd.status, upd.text).toBe(200);
    expect(upd.body.organization).toMatchObject({ name: "Acme", description: "We make things" });
    const [row] = await audits("organization.updated", t.organizationId);
    expect(row.changes).toMatchObject({ before: { description: null }, after: { description: "We make things" } });
    expect(row.environment_id).toBeNull();

    const addr = await api("PUT", `/organizations/${t.organizationId}/address`, t.token, {
      line1: "1 Main St",
      city: "Berlin",
      postalCode: "10115",
      country: "de",
    });
    expect(addr.status, addr.text).toBe(200);
    expect(addr.body.organization.address).toEqual({ line1: "1 Main St", city: "Berlin", postalCode: "10115", country: "DE" });
    // The published client's form: no street line; the country is what makes an address.
    const clientForm = await api("PUT", `/organizations/${t.organizationId}/address`, t.token, { city: "Hamburg", region: "HH", country: "DE" });
    expect(clientForm.status, clientForm.text).toBe(200);
    expect(clientForm.body.organization.address).toEqual({ city: "Hamburg", region: "HH", country: "DE" });
    expect(await audits("organization.address_updated", t.organizationId)).toHaveLength(2);
  });

  it("rejects bad updates with 400 and changes nothing", async () => {
    const before = await app.db.one("SELECT * FROM organizations WHERE id = $1", [t.organizationId]);
    for (const [path, body] of [
      [`/organizations/${t.organizationId}`, { name: "" }],
      [`/organizations/${t.organizationId}`, { websiteUrl: "ftp://x" }],
      [`/organizations/${t.organizationId}/address`, { line1: "x", city: "y", country: "D1" }],
      [`/organizations/${t.organizationId}/address`, { line1: "x", city: "y" }],
    ] as const) {
      const res = await api("PUT", path, t.token, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect(await app.db.one("SELECT * FROM organizations WHERE id = $1", [t.organizationId])).toEqual(before);
  });

  it("answers 404 to another tenant's environment token and to a non-member's member token", async () => {
    for (const token of [other.token, other.memberToken]) {
      expect((await api("GET", `/organizations/${t.organizationId}`, token)).status).toBe(404);
      const res = await api("PUT", `/organizations/${t.organizationId}`, token, { name: "hijack" });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("not_found");
      expect((await api("DELETE", `/organizations/${t.organizationId}`, token)).status).toBe(404);
    }
    expect((await app.db.one("SELECT name FROM organizations WHERE id = $1", [t.organizationId])).name).toBe("Acme");
  });

  it("deletes an organization with everything in it (owners only); its tokens stop at once", async () => {
    const x = await app.bootstrap({ ownerEmail: email("deleter") });
    const admin = await invitedMember("admin", x);
    expect((await api("GET", `/environments/${x.environmentId}/tokens`, x.token)).status).toBe(200); // cached principal
    const denied = await api("DELETE", `/organizations/${x.organizationId}`, admin.person.memberToken);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe("owner_required");
    expect(await count("organizations WHERE id = $1", [x.organizationId])).toBe(1);

    const res = await api("DELETE", `/organizations/${x.organizationId}`, x.memberToken);
    expect(res.status, res.text).toBe(204);
    expect(await count("organizations WHERE id = $1", [x.organizationId])).toBe(0);
    expect(await count("environments WHERE organization_id = $1", [x.organizationId])).toBe(0);
    expect(await count("members WHERE organization_id = $1", [x.organizationId])).toBe(0);
    expect((await api("GET", `/environments/${x.environmentId}/tokens`, x.token)).status).toBe(401);
    // The account and its member token outlive the organization.
    expect((await api("GET", "/organizations", x.memberToken)).body.count).toBe(0);
  });
});

describe("projects and environments", () => {
  it("creates a project with live and sandbox environments, each with its own settings and key (audited)", async () => {
    const before = await count("projects WHERE organization_id = $1", [t.organizationId]);
    const bad = await api("POST", `/organizations/${t.organizationId}/projects`, t.token, { name: "" });
    expect(bad.status).toBe(400);
    expect(await count("projects WHERE organization_id = $1", [t.organizationId])).toBe(before);

    const res = await api("POST", `/organizations/${t.organizationId}/projects`, t.memberToken, { name: "Shop", description: "web shop" });
    expect(res.status, res.text).toBe(201);
    // The published client's CreateProjectResponse: {project}.
    const project = res.body.project;
    expect(project).toMatchObject({ organizationId: t.organizationId, name: "Shop", description: "web shop" });
    expect(project.environments.map((e: any) => e.name).sort()).toEqual(["live", "sandbox"]);
    const envIds = project.environments.map((e: any) => e.id);
    expect(await count("environment_signing_keys WHERE environment_id = ANY($1::uuid[])", [envIds])).toBe(2);
    expect(await audits("project.created", project.id)).toHaveLength(1);
    for (const id of envIds) expect(await audits("environment.created", id)).toHaveLength(1);

    const list = await api("GET", `/organizations/${t.organizationId}/projects?limit=1`, t.token);
    expect(list.status).toBe(200);
    expect(list.body.projects).toHaveLength(1);
    expect(list.body.count).toBe(before + 1);

    const envs = await api("GET", `/projects/${project.id}/environments`, t.memberToken);
    expect(envs.status).toBe(200);
    expect(envs.body.count).toBe(2);
    // The published client's EnvironmentsResponse: {environments: {live, sandbox}}.
    const byName = Object.fromEntries(project.environments.map((e: any) => [e.name, e.id]));
    expect(envs.body.environments.live.id).toBe(byName.live);
    expect(envs.body.environments.sandbox.id).toBe(byName.sandbox);
    expect(envs.body.environments.live.settings).toMatchObject({ general: { displayName: "Shop" }, security: { jwtDuration: { amount: 2, unit: "hours" } } });
  });

  it("gets, updates and deletes a project; deletion cascades and stops its tokens at once", async () => {
    const created = await api("POST", `/organizations/${t.organizationId}/projects`, t.memberToken, { name: "Temp" });
    const id = created.body.project.id;
    const sandbox = created.body.project.environments.find((e: any) => e.name === "sandbox").id;
    expect((await api("GET", `/projects/${id}`, t.memberToken)).body).toMatchObject({ id, name: "Temp" });
    const upd = await api("PUT", `/projects/${id}`, t.memberToken, { name: "Renamed" });
    expect(upd.status).toBe(200);
    expect(upd.body.name).toBe("Renamed");
    expect((await api("PUT", `/projects/${id}`, t.memberToken, { name: "" })).status).toBe(400);
    expect((await app.db.one("SELECT name FROM projects WHERE id = $1", [id])).name).toBe("Renamed");
    expect(await audits("project.updated", id)).toHaveLength(1);

    const token = await api("POST", `/environments/${sandbox}/tokens`, t.memberToken, { note: "temp" });
    expect(token.status, token.text).toBe(201);
    expect((await api("GET", `/environments/${sandbox}/tokens`, token.body.token.rawToken)).status).toBe(200);

    const del = await api("DELETE", `/projects/${id}`, t.memberToken);
    expect(del.status).toBe(204);
    expect(await count("projects WHERE id = $1", [id])).toBe(0);
    expect(await count("environments WHERE project_id = $1", [id])).toBe(0);
    expect(await count("api_tokens WHERE environment_id = $1", [sandbox])).toBe(0);
    expect((await api("GET", `/environments/${sandbox}/tokens`, token.body.token.rawToken)).status).toBe(401);
    expect((await api("GET", `/projects/${id}`, t.memberToken)).status).toBe(404);
    expect(await audits("project.deleted", id)).toHaveLength(1);
  });

  it("answers 404 for another tenant's projects and environments", async () => {
    for (const token of [other.token, other.memberToken]) {
      expect((await api("GET", `/projects/${t.projectId}`, token)).status).toBe(404);
      expect((await api("DELETE", `/projects/${t.projectId}`, token)).status).toBe(404);
      expect((await api("GET", `/projects/${t.projectId}/environments`, token)).status).toBe(404);
      expect((await api("GET", `/organizations/${t.organizationId}/projects`, token)).status).toBe(404);
      expect((await api("POST", `/organizations/${t.organizationId}/projects`, token, { name: "x" })).status).toBe(404);
      expect((await api("GET", `/environments/${t.environmentId}`, token)).status).toBe(404);
      expect((await api("PUT", `/environments/${t.environmentId}`, token, { general: { displayName: "x" } })).status).toBe(404);
      expect((await api("GET", `/environments/${t.environmentId}/keys`, token)).status).toBe(404);
    }
    expect(await count("projects WHERE id = $1", [t.projectId])).toBe(1);
  });

  it("updates an environment's settings by what the body names (audited); bad settings change nothing", async () => {
    const path = `/environments/${t.environmentId}`;
    const res = await api("PUT", path, t.token, {
      general: { displayName: "Acme sandbox", supportEmail: "help@acme.example", appLogoUrl: "https://acme.example/logo.png" },
      security: { jwtDuration: { amount: 1, unit: "hours" }, allowedEmailDomains: ["acme.example"] },
    });
    expect(res.status, res.text).toBe(200);
    // The answer is the settings (the published client's ProjectSettings).
    expect(res.body.general).toEqual({ displayName: "Acme sandbox", supportEmail: "help@acme.example", appLogoUrl: "https://acme.example/logo.png" });
    expect(res.body.security).toEqual({ jwtDuration: { amount: 1, unit: "hours" }, allowedEmailDomains: ["acme.example"], auth: { storage: ["localstorage"] }, hCaptcha: { enabled: false } });
    expect(res.body.sdk.collectUserData.email).toEqual({ enabled: true, required: false });
    expect(res.body.kyc).toEqual([{ name: "email", enabled: true, required: false, unique: true, verify: true }]);
    expect(res.body).toMatchObject({ chains: [], design: {}, privacy: {} });

    const sdk = await api("PUT", path, t.token, { sdk: { collectUserData: { email: { enabled: true, required: true }, firstName: { enabled: true } }, multiWallet: true } });
    expect(sdk.status, sdk.text).toBe(200);
    expect(sdk.body.general.displayName).toBe("Acme sandbox"); // untouched section
    expect(sdk.body.sdk).toMatchObject({ multiWallet: true, collectUserData: { email: { enabled: true, required: true }, firstName: { enabled: true, required: false } } });
    expect((await audits("environment.updated", t.environmentId)).length).toBe(2);

    // The client's chains, design and privacy sections are stored as given; kyc (a view of collectUserData) is ignored.
    const more = await api("PUT", path, t.token, { chains: [{ name: "ETH", enabled: true }], design: { modal: { theme: "dark" } }, privacy: { collectIp: false }, kyc: [] });
    expect(more.status, more.text).toBe(200);
    expect(more.body).toMatchObject({ chains: [{ name: "ETH", enabled: true }], design: { modal: { theme: "dark" } }, privacy: { collectIp: false } });
    expect(more.body.kyc.map((k: any) => k.name).sort()).toEqual(["email", "firstName"]);
    expect((await api("GET", path, t.token)).body.settings.chains).toEqual([{ name: "ETH", enabled: true, networks: [] }]);
    // A chain's networks (the client's Network) are kept with it: chain ids as proto3 JSON int64 text.
    const networks = [{ networkId: 1, chainName: "Ethereum", enabled: true }, { networkId: 8453, chainName: "Base", enabled: false, type: "custom" }];
    const withNetworks = await api("PUT", path, t.token, { chains: [{ name: "EVM", enabled: true, networks }] });
    expect(withNetworks.status, withNetworks.text).toBe(200);
    expect((await api("GET", path, t.token)).body.settings.chains).toEqual([
      {
        name: "EVM",
        enabled: true,
        networks: [
          { networkId: "1", chainName: "Ethereum", enabled: true },
          { networkId: "8453", chainName: "Base", enabled: false, type: "custom" },
        ],
      },
    ]);

    // The live environment has its own settings.
    const live = await api("GET", `/environments/${t.liveEnvironmentId}`, t.memberToken);
    expect(live.status).toBe(200);
    expect(live.body.settings.general.displayName).toBeUndefined();

    const before = await app.db.one("SELECT settings, updated_at FROM environments WHERE id = $1", [t.environmentId]);
    for (const body of [
      { security: { jwtDuration: { amount: 0, unit: "minutes" } } },
      { security: { jwtDuration: { amount: 31, unit: "days" } } },
      { general: { supportEmail: "not-an-email" } },
      { general: { appLogoUrl: "javascript:alert(1)" } },
      { security: { allowedEmailDomains: ["Not A Domain"] } },
      { sdk: { collectUserData: { phoneNumber: { enabled: false, required: true } } } },
      { sdk: { multiWallet: "yes" } },
    ]) {
      const bad = await api("PUT", path, t.token, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.code).toEqual(expect.any(String));
    }
    expect(await app.db.one("SELECT settings, updated_at FROM environments WHERE id = $1", [t.environmentId])).toEqual(before);
  });

  it("serves the environment's public key (PEM and JWK); the private key is sealed and signs verifiable JWTs", async () => {
    const res = await api("GET", `/environments/${t.liveEnvironmentId}/keys`, t.memberToken);
    expect(res.status, res.text).toBe(200);
    const key = res.body.key;
    expect(key.alg).toBe("ES256");
    expect(key.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(key.jwk).toMatchObject({ kty: "EC", crv: "P-256", kid: key.kid, alg: "ES256", use: "sig" });
    expect(key.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(res.body)).not.toContain("PRIVATE");
    const again = await api("GET", `/environments/${t.liveEnvironmentId}/keys`, t.memberToken);
    expect(again.body.key.kid).toBe(key.kid);

    const row = await app.db.one("SELECT private_key_sealed FROM environment_signing_keys WHERE environment_id = $1", [t.liveEnvironmentId]);
    expect(row.private_key_sealed).not.toContain("PRIVATE KEY");
    const signing = await app.deps.sessionKeys.signingKey(t.liveEnvironmentId);
    const jwt = await new SignJWT({ sub: "user-1" }).setProtectedHeader({ alg: "ES256", kid: signing.kid }).sign(signing.key);
    const verified = await jwtVerify(jwt, await importJWK(key.jwk, "ES256"));
    expect(verified.payload.sub).toBe("user-1");
  });

  it("creates a missing key only once under concurrent first reads", async () => {
    const x = await app.bootstrap({ ownerEmail: email("keys") });
    const results = await Promise.all([1, 2, 3, 4].map(() => api("GET", `/environments/${x.environmentId}/keys`, x.token)));
    expect(new Set(results.map((r) => r.body.key.kid)).size).toBe(1);
    expect(await count("environment_signing_keys WHERE environment_id = $1", [x.environmentId])).toBe(1);
  });
});

describe("members and roles", () => {
  it("lists members and the account's environment ids", async () => {
    const res = await api("GET", `/organizations/${t.organizationId}/members`, t.token);
    expect(res.status).toBe(200);
    expect(res.body.members).toContainEqual(expect.objectContaining({ id: t.memberId, role: "owner", accountId: t.accountId }));
    expect(res.body.count).toBe(await count("members WHERE organization_id = $1", [t.organizationId]));
    // The published client parses a bare array of ids.
    const config = new Configuration({ basePath: `${app.baseUrl}/api/v0`, accessToken: t.memberToken, headers: { Authorization: `Bearer ${t.memberToken}` } });
    const ids = await new MembersApi(config).membershipEnvironmentIdsGet();
    expect(ids).toEqual(expect.arrayContaining([t.environmentId, t.liveEnvironmentId]));
    expect(ids).not.toContain(other.environmentId);
    expect((await api("GET", "/membershipEnvironmentIds", t.token)).status).toBe(403);
    // RPC keeps the count beside the list.
    const rpc = await createClient(MembersService, createGrpcTransport({ baseUrl: app.baseUrl })).listMembershipEnvironmentIds(
      {},
      { headers: { authorization: `Bearer ${t.memberToken}` } },
    );
    expect([...rpc.environmentIds].sort()).toEqual([...ids].sort());
    expect(rpc.count).toBe(ids.length);
  });

  it("a viewer reads but gets 403 on writes, and nothing changes", async () => {
    const viewer = await invitedMember("viewer");
    expect((await api("GET", `/organizations/${t.organizationId}/members`, viewer.person.memberToken)).status).toBe(200);
    const before = await app.db.one("SELECT * FROM organizations WHERE id = $1", [t.organizationId]);
    for (const [method, path, body] of [
      ["PUT", `/organizations/${t.organizationId}`, { name: "viewer was here" }],
      ["POST", `/organizations/${t.organizationId}/projects`, { name: "nope" }],
      ["PUT", `/environments/${t.environmentId}`, { general: { displayName: "nope" } }],
      ["PUT", `/organizations/${t.organizationId}/mfaSettings/totp/enable`, undefined],
      ["POST", `/environments/${t.environmentId}/tokens`, { note: "nope" }],
      ["DELETE", `/members/${t.memberId}`, undefined],
    ] as const) {
      const res = await api(method, path, viewer.person.memberToken, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.code).toBe("forbidden");
    }
    expect(await app.db.one("SELECT * FROM organizations WHERE id = $1", [t.organizationId])).toEqual(before);
  });

  it("a developer works on projects but cannot manage members", async () => {
    const dev = await invitedMember("developer");
    const viewer = await invitedMember("viewer");
    const res = await api("PUT", `/members/${viewer.memberId}`, dev.person.memberToken, { role: "admin" });
    expect(res.status).toBe(403);
    expect((await app.db.one("SELECT role FROM members WHERE id = $1", [viewer.memberId])).role).toBe("viewer");
    expect((await api("DELETE", `/members/${viewer.memberId}`, dev.person.memberToken)).status).toBe(403);
    expect((await api("POST", `/organizations/${t.organizationId}/invites`, dev.person.memberToken, { email: email("x"), role: "viewer" })).status).toBe(403);
    const project = await api("POST", `/organizations/${t.organizationId}/projects`, dev.person.memberToken, { name: "Dev project" });
    expect(project.status, project.text).toBe(201);
  });

  it("changes roles (audited); nobody becomes owner that way and the last owner stays", async () => {
    const m = await invitedMember("viewer");
    const res = await api("PUT", `/members/${m.memberId}`, t.memberToken, { role: "developer" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.member).toMatchObject({ id: m.memberId, role: "developer", user: { id: m.person.accountId, email: m.email } });
    const [row] = await audits("member.updated", m.memberId);
    expect(row.changes).toMatchObject({ before: { role: "viewer" }, after: { role: "developer" } });

    const toOwner = await api("PUT", `/members/${m.memberId}`, t.memberToken, { role: "owner" });
    expect(toOwner.status).toBe(422);
    expect(toOwner.body.code).toBe("use_delegate_ownership");
    expect((await api("PUT", `/members/${m.memberId}`, t.memberToken, { role: "boss" })).status).toBe(400);

    const demote = await api("PUT", `/members/${t.memberId}`, t.memberToken, { role: "admin" });
    expect(demote.status).toBe(422);
    expect(demote.body.code).toBe("last_owner");
    const remove = await api("DELETE", `/members/${t.memberId}`, t.token);
    expect(remove.status).toBe(422);
    expect(remove.body).toMatchObject({ code: "last_owner", error: expect.any(String) });
    expect((await app.db.one("SELECT role FROM members WHERE id = $1", [t.memberId])).role).toBe("owner");
  });

  it("delegates ownership in one step: the target becomes owner, the caller admin; only owners may", async () => {
    const x = await app.bootstrap({ ownerEmail: email("delegator") });
    const admin = await invitedMember("admin", x);
    const notOwner = await api("PUT", `/members/${x.memberId}/delegateOwnership`, admin.person.memberToken, {});
    expect(notOwner.status).toBe(403);
    expect(notOwner.body.code).toBe("owner_required");

    const res = await api("PUT", `/members/${admin.memberId}/delegateOwnership`, x.memberToken, {});
    expect(res.status, res.text).toBe(200);
    expect(res.body.member).toMatchObject({ id: admin.memberId, role: "owner" });
    expect(res.body.previousOwner).toMatchObject({ id: x.memberId, role: "admin" });
    const roles = await app.db.any("SELECT id, role FROM members WHERE organization_id = $1 ORDER BY role", [x.organizationId]);
    expect(roles).toEqual(expect.arrayContaining([{ id: admin.memberId, role: "owner" }, { id: x.memberId, role: "admin" }]));
    expect(await audits("member.updated", admin.memberId)).toHaveLength(1);
    expect(await audits("member.updated", x.memberId)).toHaveLength(1);
    // The former owner's environment token now acts as an admin at once (its cached principal was dropped).
    const again = await api("PUT", `/members/${admin.memberId}/delegateOwnership`, x.token, {});
    expect(again.status).toBe(403);
    // And the new owner can hand it back.
    expect((await api("PUT", `/members/${x.memberId}/delegateOwnership`, admin.person.memberToken, {})).status).toBe(200);
  });

  it("delegates ownership in the published client's form: own member id in the path, the new owner in the body", async () => {
    const x = await app.bootstrap({ ownerEmail: email("client-delegator") });
    const admin = await invitedMember("admin", x);
    // Someone else's member id in the path with the body form: refused, nothing changes.
    const wrongPath = await api("PUT", `/members/${admin.memberId}/delegateOwnership`, x.memberToken, { adminMemberIdToDelegate: admin.memberId });
    expect(wrongPath.status).toBe(403);
    expect((await app.db.one("SELECT role FROM members WHERE id = $1", [admin.memberId])).role).toBe("admin");
    const bad = await api("PUT", `/members/${x.memberId}/delegateOwnership`, x.memberToken, { adminMemberIdToDelegate: "nope" });
    expect(bad.status).toBe(400);

    const res = await api("PUT", `/members/${x.memberId}/delegateOwnership`, x.memberToken, { adminMemberIdToDelegate: admin.memberId });
    expect(res.status, res.text).toBe(200);
    const roles = await app.db.any("SELECT id, role FROM members WHERE organization_id = $1", [x.organizationId]);
    expect(roles).toEqual(expect.arrayContaining([{ id: admin.memberId, role: "owner" }, { id: x.memberId, role: "admin" }]));
  });

  it("removing a member deactivates the environment tokens it created, at once; the account loses access", async () => {
    const dev = await invitedMember("developer");
    const created = await api("POST", `/environments/${t.environmentId}/tokens`, dev.person.memberToken, { note: "dev token" });
    expect(created.status, created.text).toBe(201);
    expect(created.body.token.createdBy.id).toBe(dev.memberId);
    const raw = created.body.token.rawToken;
    expect((await api("GET", `/environments/${t.environmentId}/tokens`, raw)).status).toBe(200);

    const res = await api("DELETE", `/members/${dev.memberId}`, t.memberToken);
    expect(res.status, res.text).toBe(204);
    expect(await count("members WHERE id = $1", [dev.memberId])).toBe(0);
    expect((await app.db.one("SELECT active FROM api_tokens WHERE id = $1", [created.body.token.id])).active).toBe(false);
    expect((await api("GET", `/environments/${t.environmentId}/tokens`, raw)).status).toBe(401);
    expect((await api("GET", `/organizations/${t.organizationId}`, dev.person.memberToken)).status).toBe(404);
    // Their own organization still works with the same member token.
    expect((await api("GET", `/organizations/${dev.person.organizationId}`, dev.person.memberToken)).status).toBe(200);
    const [row] = await audits("member.deleted", dev.memberId);
    expect(row.changes.before).toMatchObject({ role: "developer", deactivatedTokens: 1 });
  });

  it("answers 404 for another tenant's members", async () => {
    for (const token of [other.token, other.memberToken]) {
      expect((await api("GET", `/organizations/${t.organizationId}/members`, token)).status).toBe(404);
      expect((await api("PUT", `/members/${t.memberId}`, token, { role: "viewer" })).status).toBe(404);
      expect((await api("DELETE", `/members/${t.memberId}`, token)).status).toBe(404);
      expect((await api("PUT", `/members/${t.memberId}/delegateOwnership`, token, {})).status).toBe(404);
    }
    expect((await app.db.one("SELECT role FROM members WHERE id = $1", [t.memberId])).role).toBe("owner");
  });
});

describe("invites", () => {
  it("the invitee lists, accepts (membership with the invite's role) and then works in the organization", async () => {
    const person = await app.bootstrap({ ownerEmail: email("invitee") });
    const inviteeEmail = (await app.db.one("SELECT email FROM accounts WHERE id = $1", [person.accountId])).email;
    const inv = await api("POST", `/organizations/${t.organizationId}/invites`, t.memberToken, { email: inviteeEmail.toUpperCase(), role: "developer" });
    expect(inv.status, inv.text).toBe(201);
    expect(inv.body).toMatchObject({ status: "pending", role: "developer", organizationId: t.organizationId });
    expect(await audits("invite.created", inv.body.id)).toHaveLength(1);

    const mine = await api("GET", "/invites", person.memberToken);
    expect(mine.status).toBe(200);
    expect(mine.body.invites.map((i: any) => i.id)).toEqual([inv.body.id]);
    expect(mine.body.count).toBe(1);
    expect((await api("GET", "/invites", t.memberToken)).body.invites.map((i: any) => i.id)).not.toContain(inv.body.id);
    expect((await api("GET", "/invites", person.token)).status).toBe(403);

    // Not the invitee: 404 like an unknown id, and nothing changes.
    expect((await api("PUT", `/invites/${inv.body.id}`, other.memberToken, { status: "accepted" })).status).toBe(404);
    expect((await api("PUT", `/invites/${inv.body.id}`, person.token, { status: "accepted" })).status).toBe(404);
    expect((await api("PUT", `/invites/${inv.body.id}`, person.memberToken, { status: "maybe" })).status).toBe(400);
    expect(await count("members WHERE organization_id = $1 AND account_id = $2", [t.organizationId, person.accountId])).toBe(0);

    const acc = await api("PUT", `/invites/${inv.body.id}`, person.memberToken, { status: "accepted" });
    expect(acc.status, acc.text).toBe(200);
    expect(acc.body.status).toBe("accepted");
    const member = await app.db.one("SELECT * FROM members WHERE organization_id = $1 AND account_id = $2", [t.organizationId, person.accountId]);
    expect(member.role).toBe("developer");
    expect(await audits("invite.accepted", inv.body.id)).toHaveLength(1);
    expect((await audits("member.created", member.id))[0].actor_account_id).toBe(person.accountId);

    // The invitee's member token now works in the organization, with the invite's role.
    const members = await api("GET", `/organizations/${t.organizationId}/members`, person.memberToken);
    expect(members.status).toBe(200);
    expect(members.body.members.map((m: any) => m.id)).toContain(member.id);
    expect((await api("GET", "/membershipEnvironmentIds", person.memberToken)).body).toContain(t.environmentId);

    const twice = await api("PUT", `/invites/${inv.body.id}`, person.memberToken, { status: "accepted" });
    expect(twice.status).toBe(422);
    expect(twice.body.code).toBe("invite_not_pending");
    const existing = await api("POST", `/organizations/${t.organizationId}/invites`, t.token, { email: inviteeEmail, role: "viewer" });
    expect(existing.status).toBe(422);
    expect(existing.body.code).toBe("member_already_exists");
  });

  it("the invitee rejects: no membership", async () => {
    const person = await app.bootstrap({ ownerEmail: email("rejecter") });
    const inviteeEmail = (await app.db.one("SELECT email FROM accounts WHERE id = $1", [person.accountId])).email;
    const inv = await api("POST", `/organizations/${t.organizationId}/invites`, t.token, { email: inviteeEmail, role: "viewer" });
    const res = await api("PUT", `/invites/${inv.body.id}`, person.memberToken, { status: "rejected" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe("rejected");
    expect(await count("members WHERE organization_id = $1 AND account_id = $2", [t.organizationId, person.accountId])).toBe(0);
    expect(await audits("invite.rejected", inv.body.id)).toHaveLength(1);
  });

  it("an expired invite answers 422 invite_expired, reads as expired and creates nothing", async () => {
    const person = await app.bootstrap({ ownerEmail: email("late") });
    const inviteeEmail = (await app.db.one("SELECT email FROM accounts WHERE id = $1", [person.accountId])).email;
    const inv = await api("POST", `/organizations/${t.organizationId}/invites`, t.token, { email: inviteeEmail, role: "viewer" });
    await app.db.none("UPDATE invites SET expires_at = now() - interval '1 day' WHERE id = $1", [inv.body.id]);
    expect((await api("GET", "/invites", person.memberToken)).body.count).toBe(0);
    const res = await api("PUT", `/invites/${inv.body.id}`, person.memberToken, { status: "accepted" });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: "invite_expired", error: expect.any(String) });
    expect(await count("members WHERE organization_id = $1 AND account_id = $2", [t.organizationId, person.accountId])).toBe(0);
    const list = await api("GET", `/organizations/${t.organizationId}/invites`, t.token);
    expect(list.body.invites.find((i: any) => i.id === inv.body.id).status).toBe("expired");
  });

  it("the organization revokes a pending invite (204, audited); the invitee can no longer accept", async () => {
    const person = await app.bootstrap({ ownerEmail: email("revoked") });
    const inviteeEmail = (await app.db.one("SELECT email FROM accounts WHERE id = $1", [person.accountId])).email;
    const inv = await api("POST", `/organizations/${t.organizationId}/invites`, t.token, { email: inviteeEmail, role: "admin" });
    for (const token of [other.token, other.memberToken, person.memberToken]) {
      const res = await api("DELETE", `/invites/${inv.body.id}`, token);
      expect(res.status).toBe(404);
    }
    expect((await app.db.one("SELECT status FROM invites WHERE id = $1", [inv.body.id])).status).toBe("pending");
    const del = await api("DELETE", `/invites/${inv.body.id}`, t.memberToken);
    expect(del.status).toBe(204);
    expect((await app.db.one("SELECT status FROM invites WHERE id = $1", [inv.body.id])).status).toBe("revoked");
    expect(await audits("invite.revoked", inv.body.id)).toHaveLength(1);
    const again = await api("DELETE", `/invites/${inv.body.id}`, t.memberToken);
    expect(again.status).toBe(422);
    const accept = await api("PUT", `/invites/${inv.body.id}`, person.memberToken, { status: "accepted" });
    expect(accept.status).toBe(422);
    expect(accept.body.code).toBe("invite_not_pending");
  });

  it("answers 404 for another tenant's invites list", async () => {
    for (const token of [other.token, other.memberToken]) {
      expect((await api("GET", `/organizations/${t.organizationId}/invites`, token)).status).toBe(404);
      expect((await api("POST", `/organizations/${t.organizationId}/invites`, token, { email: email("x"), role: "viewer" })).status).toBe(404);
    }
  });
});

describe("MFA settings", () => {
  it("lists every device type, enables and disables one (audited only on change)", async () => {
    const path = `/organizations/${t.organizationId}/mfaSettings`;
    const res = await api("GET", path, t.token);
    expect(res.status).toBe(200);
    expect(res.body.mfaSettings.map((s: any) => s.mfaDeviceType)).toEqual(["totp", "passkey", "email"]);
    expect(res.body.mfaSettings.every((s: any) => s.enabled === false && s.updatedAt === null)).toBe(true);

    const on = await api("PUT", `${path}/totp/enable`, t.memberToken);
    expect(on.status, on.text).toBe(200);
    expect(on.body).toMatchObject({ mfaDeviceType: "totp", enabled: true });
    expect(typeof on.body.updatedAt).toBe("string");
    expect((await api("PUT", `${path}/totp/enable`, t.memberToken)).status).toBe(200);
    const row = await app.db.one("SELECT id FROM organization_mfa_settings WHERE organization_id = $1 AND device_type = 'totp'", [t.organizationId]);
    expect(await audits("mfa_setting.enabled", row.id)).toHaveLength(1);
    expect((await api("GET", path, t.token)).body.mfaSettings.find((s: any) => s.mfaDeviceType === "totp").enabled).toBe(true);

    const off = await api("PUT", `${path}/totp/disable`, t.token);
    expect(off.body).toMatchObject({ mfaDeviceType: "totp", enabled: false });
    expect(await audits("mfa_setting.disabled", row.id)).toHaveLength(1);
  });

  it("rejects unknown device types (400) and other tenants (404), changing nothing", async () => {
    const before = await count("organization_mfa_settings WHERE organization_id = $1", [t.organizationId]);
    expect((await api("PUT", `/organizations/${t.organizationId}/mfaSettings/carrierPigeon/enable`, t.token)).status).toBe(400);
    // Sigil has no SMS second factor (the published client's MFADeviceType has none either).
    expect((await api("PUT", `/organizations/${t.organizationId}/mfaSettings/sms/enable`, t.token)).status).toBe(400);
    for (const token of [other.token, other.memberToken]) {
      expect((await api("PUT", `/organizations/${t.organizationId}/mfaSettings/passkey/enable`, token)).status).toBe(404);
      expect((await api("GET", `/organizations/${t.organizationId}/mfaSettings`, token)).status).toBe(404);
    }
    expect(await count("organization_mfa_settings WHERE organization_id = $1", [t.organizationId])).toBe(before);
  });
});

describe("environment tokens with permissions", () => {
  it("creates a token with a subset of permissions; the list shows them and never the secret (audited)", async () => {
    const res = await api("POST", `/environments/${t.environmentId}/tokens`, t.token, { note: "readers", permissions: ["users.read", "tokens.read"] });
    expect(res.status, res.text).toBe(201);
    expect(res.body.token.permissions).toEqual(["tokens.read", "users.read"]);
    const raw = res.body.token.rawToken;
    const list = await api("GET", `/environments/${t.environmentId}/tokens`, raw);
    expect(list.status).toBe(200);
    const listed = list.body.tokens.find((x: any) => x.id === res.body.token.id);
    expect(listed).toMatchObject({ checksum: raw.slice(-6), note: "readers", active: true, permissions: ["tokens.read", "users.read"] });
    expect(listed.createdBy.id).toBe(t.memberId);
    expect(list.text).not.toContain(raw);
    const [row] = await audits("token.created", res.body.token.id);
    expect(JSON.stringify(row.changes)).not.toContain(raw.slice(4));
    // The reader token cannot write.
    expect((await api("POST", `/environments/${t.environmentId}/tokens`, raw, { note: "x" })).status).toBe(403);
  });

  it("never mints more than the caller has (403) and rejects unknown permissions (400); nothing is stored", async () => {
    const limited = await api("POST", `/environments/${t.environmentId}/tokens`, t.token, { note: "minter", permissions: ["tokens.read", "tokens.write"] });
    const before = await count("api_tokens WHERE environment_id = $1", [t.environmentId]);
    const more = await api("POST", `/environments/${t.environmentId}/tokens`, limited.body.token.rawToken, { permissions: ["users.write"] });
    expect(more.status).toBe(403);
    expect(more.body.code).toBe("permissions_exceed_caller");
    const unknown = await api("POST", `/environments/${t.environmentId}/tokens`, t.token, { permissions: ["root.everything"] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe("invalid_permission");
    expect(await count("api_tokens WHERE environment_id = $1", [t.environmentId])).toBe(before);
    // Default: what the caller has.
    const dflt = await api("POST", `/environments/${t.environmentId}/tokens`, limited.body.token.rawToken, { note: "child" });
    expect(dflt.status).toBe(201);
    expect(dflt.body.token.permissions).toEqual(["tokens.read", "tokens.write"]);
  });

  it("a member token creates environment tokens for environments of its organizations only", async () => {
    const res = await api("POST", `/environments/${t.liveEnvironmentId}/tokens`, t.memberToken, { note: "from member" });
    expect(res.status, res.text).toBe(201);
    expect(res.body.token.projectEnvironmentId).toBe(t.liveEnvironmentId);
    expect(res.body.token.permissions).toEqual([...MANAGEMENT_PERMISSIONS]);
    expect((await api("POST", `/environments/${t.liveEnvironmentId}/tokens`, other.memberToken, { note: "x" })).status).toBe(404);
    const del = await api("DELETE", `/environments/${t.liveEnvironmentId}/tokens/${res.body.token.id}`, t.memberToken);
    expect(del.status).toBe(204);
    expect(await audits("token.deleted", res.body.token.id)).toHaveLength(1);
    expect((await api("DELETE", `/environments/${t.liveEnvironmentId}/tokens/${res.body.token.id}`, t.memberToken)).status).toBe(404);
  });
});

describe("member (account) tokens", () => {
  it("creates, lists and deletes the account's tokens; a deleted one stops at once", async () => {
    const res = await api("POST", "/user/tokens", t.memberToken, { note: "laptop", permissions: ["organizations.read", "members.read"] });
    expect(res.status, res.text).toBe(201);
    const token = res.body.token;
    expect(token.rawToken).toMatch(/^sgl_[0-9a-f]{64}$/);
    expect(token.permissions).toEqual(["organizations.read", "members.read"]);
    expect(token.projectEnvironmentId).toBeUndefined();
    const row = await app.db.one("SELECT account_id, environment_id, token_hash FROM api_tokens WHERE id = $1", [token.id]);
    expect(row).toMatchObject({ account_id: t.accountId, environment_id: null });
    expect(await audits("member_token.created", token.id)).not.toHaveLength(0);

    expect((await api("GET", `/organizations/${t.organizationId}/members`, token.rawToken)).status).toBe(200);
    expect((await api("PUT", `/organizations/${t.organizationId}`, token.rawToken, { name: "x" })).status).toBe(403);

    const list = await api("GET", "/user/tokens", t.memberToken);
    expect(list.status).toBe(200);
    const listed = list.body.tokens.find((x: any) => x.id === token.id);
    expect(listed).toMatchObject({ checksum: token.rawToken.slice(-6), note: "laptop", active: true });
    expect(list.text).not.toContain(token.rawToken);
    expect(list.body.count).toBe(await count("api_tokens WHERE account_id = $1 AND deleted_at IS NULL", [t.accountId]));

    for (const tok of [other.memberToken, t.token]) expect((await api("DELETE", `/user/tokens/${token.id}`, tok)).status).toBe(404);
    const del = await api("DELETE", `/user/tokens/${token.id}`, t.memberToken);
    expect(del.status).toBe(204);
    expect((await api("GET", `/organizations/${t.organizationId}/members`, token.rawToken)).status).toBe(401);
    expect(await audits("member_token.deleted", token.id)).not.toHaveLength(0);
  });

  it("needs a member token, never exceeds the calling token and validates permissions", async () => {
    expect((await api("GET", "/user/tokens", t.token)).status).toBe(403);
    expect((await api("POST", "/user/tokens", t.token, {})).status).toBe(403);
    const weak = await api("POST", "/user/tokens", t.memberToken, { permissions: ["tokens.read", "tokens.write"] });
    const before = await count("api_tokens WHERE account_id = $1", [t.accountId]);
    const more = await api("POST", "/user/tokens", weak.body.token.rawToken, { permissions: ["members.write"] });
    expect(more.status).toBe(403);
    expect(more.body.code).toBe("permissions_exceed_caller");
    expect((await api("POST", "/user/tokens", t.memberToken, { permissions: ["nope"] })).status).toBe(400);
    expect((await api("POST", "/user/tokens", t.memberToken, { note: "n".repeat(256) })).status).toBe(400);
    expect(await count("api_tokens WHERE account_id = $1", [t.accountId])).toBe(before);
  });
});

describe("over Connect and gRPC", () => {
  it("reads an organization over Connect, lists members over gRPC and creates a project over gRPC", async () => {
    const headers = { authorization: `Bearer ${t.memberToken}` };
    const orgs = createClient(OrganizationsService, createConnectTransport({ baseUrl: app.baseUrl, httpVersion: "1.1" }));
    const got = await orgs.getOrganization({ organizationId: t.organizationId }, { headers });
    expect(got.organization?.id).toBe(t.organizationId);
    expect(got.organization?.role).toBe("owner");
    await expect(orgs.getOrganization({ organizationId: t.organizationId }, { headers: { authorization: `Bearer ${other.memberToken}` } })).rejects.toMatchObject({
      code: 5, // NotFound
    });

    const membersClient = createClient(MembersService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const members = await membersClient.listOrganizationMembers({ organizationId: t.organizationId }, { headers });
    expect(members.members.map((m) => m.id)).toContain(t.memberId);
    expect(members.count).toBe(members.members.length);

    const projects = createClient(ProjectsService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const created = await projects.createProject({ organizationId: t.organizationId, name: "via gRPC" }, { headers });
    expect(created.project?.environments.map((e) => e.name).sort()).toEqual(["live", "sandbox"]);
    expect(await count("projects WHERE id = $1 AND organization_id = $2", [created.project!.id, t.organizationId])).toBe(1);
  });
});
