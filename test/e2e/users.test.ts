import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { UsersService } from "../../src/gen/sigil/users/v0/users_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

const randomEvmAddress = () => privateKeyToAddress(generatePrivateKey());

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: `users-${randomUUID()}@example.com` });
  other = await app.bootstrap({ ownerEmail: `users-other-${randomUUID()}@example.com` });
}, 60_000);
afterAll(() => app?.stop());

const usersPath = (env = t.environmentId) => `/environments/${env}/users`;

async function createUser(body: Record<string, unknown> = {}, tenant = t) {
  const res = await call(app.baseUrl, "POST", usersPath(tenant.environmentId), { token: tenant.token, body });
  expect(res.status, res.text).toBe(201);
  return res.body.user;
}

async function countUsers(env = t.environmentId): Promise<number> {
  return (await app.db.one("SELECT count(*)::int AS n FROM users WHERE environment_id = $1 AND deleted_at IS NULL", [env])).n;
}

async function auditRows(action: string, resourceId: string) {
  return app.db.any("SELECT * FROM audit_log WHERE action = $1 AND resource_id = $2", [action, resourceId]);
}

async function insertSession(userId: string, env = t.environmentId): Promise<string> {
  const id = randomUUID();
  await app.db.none("INSERT INTO sessions (id, environment_id, user_id, ip_address, user_agent) VALUES ($1, $2, $3, '10.0.0.1', 'vitest')", [
    id,
    env,
    userId,
  ]);
  return id;
}

describe("create user: externalUserId and OAuth access tokens", () => {
  it("stores the OAuth access token sealed and returns it only from the access-token operation", async () => {
    const secret = `ya29.${randomUUID()}`;
    const user = await createUser({
      email: `oauth-${randomUUID()}@example.com`,
      externalUserId: `ext-${randomUUID()}`,
      oauthAccounts: [{ provider: "oidc", accountId: randomUUID(), username: "octo", accessToken: secret, accessTokenExpiresAt: "2030-01-01T00:00:00Z" }],
    });
    expect(user.externalUserId).toMatch(/^ext-/);
    expect(JSON.stringify(user)).not.toContain(secret);
    const stored = await app.db.one("SELECT oauth_access_token_sealed FROM verified_credentials WHERE user_id = $1 AND format = 'oauth'", [user.id]);
    expect(stored.oauth_access_token_sealed).toBeTruthy();
    expect(stored.oauth_access_token_sealed).not.toContain(secret);
    const accountId = user.oauthAccounts[0].id;
    const res = await call(app.baseUrl, "GET", `/oauthAccounts/${accountId}/accessToken`, { token: t.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ accessToken: secret, expiresAt: "2030-01-01T00:00:00Z" });
    expect((await call(app.baseUrl, "GET", `/oauthAccounts/${accountId}/accessToken`, { token: other.token })).status).toBe(404);
    expect((await call(app.baseUrl, "GET", `/oauthAccounts/${accountId}/accessToken`, { token: other.memberToken })).status).toBe(404);
    expect((await call(app.baseUrl, "GET", `/oauthAccounts/${accountId}/accessToken`, { token: t.memberToken })).body.accessToken).toBe(secret);
    expect((await call(app.baseUrl, "GET", `/oauthAccounts/${randomUUID()}/accessToken`, { token: t.token })).status).toBe(404);
    const audit = await auditRows("user.created", user.id);
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit[0].changes)).not.toContain(secret);
  });

  it("refuses a duplicate externalUserId with 422 and stores nothing", async () => {
    const ext = `ext-${randomUUID()}`;
    await createUser({ externalUserId: ext });
    const before = await countUsers();
    const res = await call(app.baseUrl, "POST", usersPath(), { token: t.token, body: { externalUserId: ext } });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: "external_user_id_already_exists", error: expect.any(String) });
    expect(await countUsers()).toBe(before);
  });
});

describe("list users", () => {
  let tenant: BootstrapResult;
  const ids: string[] = [];
  let walletAddress: string;

  beforeAll(async () => {
    tenant = await app.bootstrap({ ownerEmail: `list-${randomUUID()}@example.com` });
    walletAddress = randomEvmAddress();
    for (let i = 0; i < 12; i++) {
      const u = await createUser(
        {
          email: `${i % 2 ? "Odd" : "even"}${i}@example.com`,
          firstName: i < 3 ? "Zed" : `Name${i}`,
          externalUserId: `ext-${i}`,
          phoneNumber: `+1555000${String(i).padStart(4, "0")}`,
          ...(i === 5 ? { wallets: [{ publicWalletAddress: walletAddress, chain: "EVM", walletName: "w", walletProvider: "browserExtension" }] } : {}),
        },
        tenant,
      );
      ids.push(u.id);
    }
  }, 60_000);

  const list = (query: string, token = tenant.token) => call(app.baseUrl, "GET", `${usersPath(tenant.environmentId)}?${query}`, { token });

  it("pages newest first by default and counts all matching users", async () => {
    const res = await list("limit=5");
    expect(res.status, res.text).toBe(200);
    expect(res.body.count).toBe(12);
    expect(res.body.users.map((u: any) => u.id)).toEqual([...ids].reverse().slice(0, 5));
    const page3 = await list("limit=5&offset=10");
    expect(page3.body.users.map((u: any) => u.id)).toEqual([ids[1], ids[0]]);
    expect(page3.body.count).toBe(12);
  });

  it("orders by a whitelisted column and direction", async () => {
    const asc = await list("orderBy=createdAt:asc&limit=3");
    expect(asc.body.users.map((u: any) => u.id)).toEqual(ids.slice(0, 3));
    const byEmail = await list("orderBy=email:asc&limit=2");
    expect(byEmail.body.users.map((u: any) => u.email)).toEqual(["even0@example.com", "even10@example.com"]);
    const bad = await list("orderBy=password:asc");
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("validation_error");
  });

  it("filters by case-insensitive prefix, exact ids and wallet addresses, with the count of matches", async () => {
    const odd = await list("filter.filterColumn=email&filter.filterValue=ODD&limit=2");
    expect(odd.body.count).toBe(6);
    expect(odd.body.users).toHaveLength(2);
    expect(odd.body.users.every((u: any) => u.email.startsWith("Odd"))).toBe(true);
    // The bracket form of nested query parameters means the same.
    const bracketed = await list("filter[filterColumn]=email&filter[filterValue]=ODD&limit=2");
    expect(bracketed.body.count).toBe(6);
    expect(bracketed.body.users.map((u: any) => u.id)).toEqual(odd.body.users.map((u: any) => u.id));
    const zed = await list("filter.filterColumn=firstName&filter.filterValue=zE");
    expect(zed.body.users.map((u: any) => u.id).sort()).toEqual(ids.slice(0, 3).sort());
    const ext = await list("filter.filterColumn=externalUserId&filter.filterValue=ext-1");
    expect(ext.body.users.map((u: any) => u.id)).toEqual([ids[1]]);
    const byId = await list(`filter.filterColumn=id&filter.filterValue=${ids[4]}`);
    expect(byId.body.users.map((u: any) => u.id)).toEqual([ids[4]]);
    const wallet = await list(`filter.filterColumn=walletPublicKey&filter.filterValue=${walletAddress.toLowerCase()}`);
    expect(wallet.body.users.map((u: any) => u.id)).toEqual([ids[5]]);
    expect(wallet.body.users[0].wallets[0].publicKey).toBe(walletAddress);
    const phone = await list("filter.filterColumn=phoneNumber&filter.filterValue=%2B1555000000");
    expect(phone.body.count).toBe(10);
    const all = await list(`filter.filterColumn=all&filter.filterValue=${walletAddress.slice(0, 12)}`);
    expect(all.body.users.map((u: any) => u.id)).toEqual([ids[5]]);
    const allEmail = await list("filter.filterColumn=all&filter.filterValue=even1");
    expect(allEmail.body.users.map((u: any) => u.email).sort()).toEqual(["even10@example.com"]);
    const like = await list("filter.filterColumn=email&filter.filterValue=%25");
    expect(like.body.count).toBe(0); // % is matched literally, not as a wildcard
    const none = await list("filter.filterColumn=id&filter.filterValue=not-a-uuid");
    expect(none.body).toEqual({ users: [], count: 0 });
    const bad = await list("filter.filterColumn=password&filter.filterValue=x");
    expect(bad.status).toBe(400);
  });

  it("returns each user with credentials and sessions, and hides deleted users", async () => {
    const u = await createUser({ email: `gone-${randomUUID()}@example.com` }, tenant);
    const res = await list("limit=1");
    expect(res.body.users[0].id).toBe(u.id);
    expect(res.body.users[0].verifiedCredentials.map((c: any) => c.format)).toEqual(["email"]);
    expect(res.body.count).toBe(13);
    expect((await call(app.baseUrl, "DELETE", `${usersPath(tenant.environmentId)}/${u.id}`, { token: tenant.token })).status).toBe(204);
    expect((await list("limit=1")).body.count).toBe(12);
  });

  it("answers 404 to another tenant and 400 to a bad page", async () => {
    expect((await list("limit=1", other.token)).status).toBe(404);
    expect((await list("limit=1", other.memberToken)).status).toBe(404);
    expect((await list("limit=1", tenant.memberToken)).status).toBe(200);
    expect((await list("limit=5000")).status).toBe(400);
  });
});

describe("update user", () => {
  it("updates only the fields given, clears with an empty string, and audits", async () => {
    const email = `upd-${randomUUID()}@example.com`;
    const user = await createUser({ email, firstName: "Ann", lastName: "Lee", alias: "al", metadata: { a: 1 } });
    const res = await call(app.baseUrl, "PUT", `${usersPath()}/${user.id}`, { token: t.token, body: { firstName: "Anna", alias: "" } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.user).toMatchObject({ firstName: "Anna", lastName: "Lee", email, metadata: { a: 1 } });
    expect(res.body.user.alias).toBeUndefined();
    const audit = await auditRows("user.updated", user.id);
    expect(audit).toHaveLength(1);
    expect(audit[0].changes).toMatchObject({ before: { firstName: "Ann", alias: "al" }, after: { firstName: "Anna", alias: null } });
    const legacy = await call(app.baseUrl, "PUT", `/users/${user.id}`, { token: t.token, body: { metadata: { b: 2 }, externalUserId: "x-1" } });
    expect(legacy.status, legacy.text).toBe(200);
    expect(legacy.body.user).toMatchObject({ firstName: "Anna", metadata: { b: 2 }, externalUserId: "x-1" });
  });

  it("replaces the e-mail credential and refuses another user's e-mail or phone with 422, changing nothing", async () => {
    const taken = `taken-${randomUUID()}@example.com`;
    await createUser({ email: taken, phoneNumber: "+4915112345678" });
    const user = await createUser({ email: `mine-${randomUUID()}@example.com`, firstName: "Keep" });
    const path = `${usersPath()}/${user.id}`;
    const dup = await call(app.baseUrl, "PUT", path, { token: t.token, body: { email: taken.toUpperCase(), firstName: "Changed" } });
    expect(dup.status).toBe(422);
    expect(dup.body.code).toBe("email_already_exists");
    const dupPhone = await call(app.baseUrl, "PUT", path, { token: t.token, body: { phoneNumber: "+4915112345678" } });
    expect(dupPhone.body.code).toBe("phone_number_already_exists");
    const bad = await call(app.baseUrl, "PUT", path, { token: t.token, body: { email: "not-an-email" } });
    expect(bad.status).toBe(400);
    expect((await call(app.baseUrl, "GET", path, { token: t.token })).body.user.firstName).toBe("Keep");
    expect(await auditRows("user.updated", user.id)).toHaveLength(0);
    const fresh = `new-${randomUUID()}@example.com`;
    const ok = await call(app.baseUrl, "PUT", path, { token: t.token, body: { email: fresh } });
    expect(ok.body.user.verifiedCredentials.filter((c: any) => c.format === "email").map((c: any) => c.email)).toEqual([fresh]);
  });

  it("answers 404 to another tenant and for unknown users", async () => {
    const user = await createUser({ firstName: "Mine" });
    expect((await call(app.baseUrl, "PUT", `/users/${user.id}`, { token: other.token, body: { firstName: "X" } })).status).toBe(404);
    expect((await call(app.baseUrl, "PUT", `${usersPath()}/${user.id}`, { token: other.memberToken, body: { firstName: "X" } })).status).toBe(404);
    expect((await call(app.baseUrl, "PUT", `${usersPath()}/${randomUUID()}`, { token: t.token, body: { firstName: "X" } })).status).toBe(404);
    expect((await call(app.baseUrl, "GET", `/users/${user.id}`, { token: t.token })).body.user.firstName).toBe("Mine");
  });
});

describe("delete user", () => {
  it("soft-deletes, revokes sessions, frees the e-mail and audits", async () => {
    const email = `del-${randomUUID()}@example.com`;
    const user = await createUser({ email, oauthAccounts: [{ provider: "oidc", accountId: "acct-del" }] });
    const session = await insertSession(user.id);
    expect((await call(app.baseUrl, "DELETE", `${usersPath()}/${user.id}`, { token: other.token })).status).toBe(404);
    const res = await call(app.baseUrl, "DELETE", `${usersPath()}/${user.id}`, { token: t.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    const row = await app.db.one("SELECT deleted_at FROM users WHERE id = $1", [user.id]);
    expect(row.deleted_at).not.toBeNull();
    expect((await app.db.one("SELECT revoked_at FROM sessions WHERE id = $1", [session])).revoked_at).not.toBeNull();
    expect((await call(app.baseUrl, "GET", `${usersPath()}/${user.id}`, { token: t.token })).status).toBe(404);
    expect((await call(app.baseUrl, "DELETE", `/users/${user.id}`, { token: t.token })).status).toBe(404);
    const again = await createUser({ email, oauthAccounts: [{ provider: "oidc", accountId: "acct-del" }] });
    expect(again.id).not.toBe(user.id);
    expect(await auditRows("user.deleted", user.id)).toHaveLength(1);
  });

  it("works on the deprecated path", async () => {
    const user = await createUser();
    expect((await call(app.baseUrl, "DELETE", `/users/${user.id}`, { token: t.token })).status).toBe(204);
    expect((await call(app.baseUrl, "GET", `/users/${user.id}`, { token: t.token })).status).toBe(404);
  });
});

describe("sessions", () => {
  it("revokes all of a user's sessions (current and deprecated path) and audits", async () => {
    const user = await createUser();
    const s1 = await insertSession(user.id);
    const s2 = await insertSession(user.id);
    expect((await call(app.baseUrl, "POST", `${usersPath()}/${user.id}/sessions/revoke`, { token: other.token })).status).toBe(404);
    expect((await app.db.one("SELECT count(*)::int AS n FROM sessions WHERE user_id = $1 AND revoked_at IS NULL", [user.id])).n).toBe(2);
    const res = await call(app.baseUrl, "POST", `${usersPath()}/${user.id}/sessions/revoke`, { token: t.token });
    expect(res.status).toBe(204);
    const rows = await app.db.any("SELECT id, revoked_at FROM sessions WHERE user_id = $1", [user.id]);
    expect(rows.map((r) => r.id).sort()).toEqual([s1, s2].sort());
    expect(rows.every((r) => r.revoked_at !== null)).toBe(true);
    const audit = await auditRows("user.sessions.revoked", user.id);
    expect(audit[0].changes).toEqual({ after: { revokedSessions: 2 } });
    const s3 = await insertSession(user.id);
    expect((await call(app.baseUrl, "POST", `/users/${user.id}/sessions/revoke`, { token: t.token })).status).toBe(204);
    expect((await app.db.one("SELECT revoked_at FROM sessions WHERE id = $1", [s3])).revoked_at).not.toBeNull();
    const read = await call(app.baseUrl, "GET", `/users/${user.id}`, { token: t.token });
    expect(read.body.user.sessions.every((s: any) => typeof s.revokedAt === "string")).toBe(true);
  });

  it("reads and revokes one session by id", async () => {
    const user = await createUser();
    const sid = await insertSession(user.id);
    const keep = await insertSession(user.id);
    const read = await call(app.baseUrl, "GET", `/users/${user.id}/sessions/${sid}`, { token: t.token });
    expect(read.status, read.text).toBe(200);
    // The published client's Session, unwrapped.
    expect(read.body).toMatchObject({ id: sid, ipAddress: "10.0.0.1", userAgent: "vitest", revokedAt: null });
    expect((await call(app.baseUrl, "GET", `/users/${user.id}/sessions/${sid}`, { token: other.token })).status).toBe(404);
    expect((await call(app.baseUrl, "GET", `/users/${user.id}/sessions/${randomUUID()}`, { token: t.token })).status).toBe(404);
    expect((await call(app.baseUrl, "PUT", `/sessions/${sid}/revoke`, { token: other.token })).status).toBe(404);
    expect((await call(app.baseUrl, "PUT", `/sessions/${sid}/revoke`, { token: other.memberToken })).status).toBe(404);
    const res = await call(app.baseUrl, "PUT", `/sessions/${sid}/revoke`, { token: t.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.revokedAt).toEqual(expect.any(String));
    const again = await call(app.baseUrl, "PUT", `/sessions/${sid}/revoke`, { token: t.memberToken });
    expect(again.body.revokedAt).toBe(res.body.revokedAt);
    expect((await app.db.one("SELECT revoked_at FROM sessions WHERE id = $1", [keep])).revoked_at).toBeNull();
    expect(await auditRows("user.session.revoked", sid)).toHaveLength(1);
  });
});

describe("MFA reset", () => {
  const insertDevice = (userId: string, type = "totp") =>
    app.db.none("INSERT INTO user_mfa_devices (id, environment_id, user_id, type, verified_at) VALUES ($1, $2, $3, $4, now())", [
      randomUUID(),
      t.environmentId,
      userId,
      type,
    ]);
  const devices = async (userId: string) => (await app.db.one("SELECT count(*)::int AS n FROM user_mfa_devices WHERE user_id = $1", [userId])).n;

  it("removes every device of the user on both paths, audits, and refuses other tenants", async () => {
    const user = await createUser({ email: `mfa-${randomUUID()}@example.com` });
    const bystander = await createUser({ email: `mfa-keep-${randomUUID()}@example.com` });
    await insertDevice(user.id);
    await insertDevice(user.id, "passkey");
    await insertDevice(bystander.id);
    for (const token of [other.token, other.memberToken])
      expect((await call(app.baseUrl, "POST", `/users/${user.id}/mfa/reset`, { token })).status).toBe(404);
    expect(await devices(user.id)).toBe(2);
    const res = await call(app.baseUrl, "POST", `/users/${user.id}/mfa/reset`, { token: t.token });
    expect(res.status, res.text).toBe(204);
    expect(await devices(user.id)).toBe(0);
    expect(await devices(bystander.id)).toBe(1);
    expect((await auditRows("user.mfa.reset", user.id))[0].changes).toEqual({ after: { removedMfaDevices: 2, unusedRecoveryCodes: 0 } });
    await insertDevice(user.id, "email");
    expect((await call(app.baseUrl, "DELETE", `/users/${user.id}/mfa`, { token: t.memberToken })).status).toBe(204);
    expect(await devices(user.id)).toBe(0);
    expect((await call(app.baseUrl, "DELETE", `/users/${randomUUID()}/mfa`, { token: t.token })).status).toBe(404);
  });

  it("shows the user's devices in the client's MFADevice shape (get and list) until a reset removes them", async () => {
    const email = `mfa-shown-${randomUUID()}@example.com`;
    const user = await createUser({ email });
    const totp = randomUUID();
    const passkey = randomUUID();
    await app.db.none(
      `INSERT INTO user_mfa_devices (id, environment_id, user_id, type, alias, is_default, created_at, verified_at)
       VALUES ($1, $3, $4, 'totp', 'phone', true, '2025-01-01T00:00:00Z', '2025-01-01T00:01:00Z'),
              ($2, $3, $4, 'passkey', NULL, false, '2025-01-02T00:00:00Z', NULL)`,
      [totp, passkey, t.environmentId, user.id],
    );
    const expected = [
      { id: totp, type: "totp", verified: true, createdAt: "2025-01-01T00:00:00Z", verifiedAt: "2025-01-01T00:01:00Z", default: true, alias: "phone" },
      { id: passkey, type: "passkey", verified: false, createdAt: "2025-01-02T00:00:00Z", verifiedAt: null, default: false },
    ];
    const read = async () => (await call(app.baseUrl, "GET", `${usersPath()}/${user.id}`, { token: t.token })).body.user;
    const listed = async () =>
      (await call(app.baseUrl, "GET", `${usersPath()}?filter[filterColumn]=email&filter[filterValue]=${encodeURIComponent(email)}`, { token: t.token })).body
        .users;
    expect((await read()).mfaDevices).toEqual(expected);
    const page = await listed();
    expect(page.map((u: any) => u.id)).toEqual([user.id]);
    expect(page[0].mfaDevices).toEqual(expected);
    expect((await call(app.baseUrl, "POST", `/users/${user.id}/mfa/reset`, { token: t.token })).status).toBe(204);
    expect((await read()).mfaDevices).toEqual([]);
    expect((await listed())[0].mfaDevices).toEqual([]);
  });
});

describe("bulk create", () => {
  it("creates good rows and reports bad ones per row", async () => {
    const tenant = await app.bootstrap({ ownerEmail: `bulk-${randomUUID()}@example.com` });
    const existing = `existing-${randomUUID()}@example.com`;
    await createUser({ email: existing }, tenant);
    const a = `a-${randomUUID()}@example.com`;
    const rows = [
      { email: a, firstName: "A" },
      { email: "not-an-email" },
      { email: a.toUpperCase() },
      { email: existing },
      { wallets: [{ publicWalletAddress: "0x12", chain: "EVM", walletName: "w", walletProvider: "browserExtension" }] },
      { firstName: "B", externalUserId: "bulk-b" },
    ];
    const before = await countUsers(tenant.environmentId);
    const res = await call(app.baseUrl, "POST", `${usersPath(tenant.environmentId)}/bulk`, { token: tenant.token, body: rows });
    expect(res.status, res.text).toBe(200);
    expect(res.body.total).toBe(6);
    expect(res.body.created.map((u: any) => u.email ?? u.firstName)).toEqual([a, "B"]);
    expect(res.body.updated).toEqual([]);
    expect(res.body.failed.map((f: any) => [f.index, f.code])).toEqual([
      [1, "validation_error"],
      [2, "email_already_exists"],
      [3, "email_already_exists"],
      [4, "invalid_wallet_address"],
    ]);
    const byIndex = res.body.results.map((r: any) => [r.index, r.user?.email ?? r.user?.firstName ?? null, r.error?.code ?? null]);
    expect(byIndex).toEqual([
      [0, a, null],
      [1, null, "validation_error"],
      [2, null, "email_already_exists"],
      [3, null, "email_already_exists"],
      [4, null, "invalid_wallet_address"],
      [5, "B", null],
    ]);
    expect(res.body.results[1].error.error).toContain("email");
    expect(await countUsers(tenant.environmentId)).toBe(before + 2);
    expect(await auditRows("user.created", res.body.results[5].user.id)).toHaveLength(1);
  });

  it("refuses more than 1000 rows and another tenant", async () => {
    const res = await call(app.baseUrl, "POST", `${usersPath()}/bulk`, { token: t.token, body: Array.from({ length: 1001 }, () => ({})) });
    expect(res.status).toBe(400);
    const before = await countUsers();
    expect((await call(app.baseUrl, "POST", `${usersPath()}/bulk`, { token: other.token, body: [{ firstName: "x" }] })).status).toBe(404);
    expect((await call(app.baseUrl, "POST", `${usersPath()}/bulk`, { token: t.token, body: { firstName: "x" } })).status).toBe(400);
    expect(await countUsers()).toBe(before);
  });
});

describe("over Connect and gRPC", () => {
  it("lists and updates users", async () => {
    const headers = { authorization: `Bearer ${t.token}` };
    const user = await createUser({ firstName: "Rpc", email: `rpc-${randomUUID()}@example.com` });
    const connect = createClient(UsersService, createConnectTransport({ baseUrl: app.baseUrl, httpVersion: "1.1" }));
    const updated = await connect.updateUser({ environmentId: t.environmentId, userId: user.id, lastName: "Call" }, { headers });
    expect(updated.user).toMatchObject({ firstName: "Rpc", lastName: "Call" });
    const grpc = createClient(UsersService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const page = await grpc.listUsers(
      { environmentId: t.environmentId, filter: { filterColumn: "email", filterValue: user.email }, limit: 10 },
      { headers },
    );
    expect(page.count).toBe(1);
    expect(page.users[0]?.lastName).toBe("Call");
  });
});
