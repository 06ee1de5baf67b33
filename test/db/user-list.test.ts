import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/db.js";
import { closeDatabase } from "../../src/db/db.js";
import { countUsers, findUserAggregate, listUserAggregates, type UserListQuery } from "../../src/db/repositories/user-aggregate.js";
import * as users from "../../src/db/repositories/users.js";
import * as wallets from "../../src/db/repositories/wallets.js";
import { bootstrapTenant, type BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { EXACT_UP_TO, keptLargeCount, pageCount } from "../../src/domain/users/list-count.js";
import { listUsers } from "../../src/domain/users/service.js";
import { createStore, type EphemeralStore } from "../../src/store/store.js";
import { migratedDatabase } from "../support/app.js";

// Contract: a list page reads each child table once for the whole page, and every user on it is exactly
// the aggregate GET user reads (same credentials, wallets with additional addresses, latest 50 sessions,
// MFA devices, sealed tokens left out); the count is exact up to EXACT_UP_TO and kept briefly beyond.
let db: Database;
let store: EphemeralStore;
let a: BootstrapResult;
let b: BootstrapResult;
const newestFirst: UserListQuery = { orderBy: { column: "createdAt", direction: "desc" }, offset: 0, limit: 100 };

beforeAll(async () => {
  db = await migratedDatabase();
  store = await createStore(undefined);
  a = await bootstrapTenant(db);
  b = await bootstrapTenant(db);
  const env = a.environmentId;
  // A user with everything: credentials (one deleted, one with sealed OAuth tokens), two wallets (one
  // deleted) with additional addresses, 60 sessions and two MFA devices.
  const full = await users.insertUser(db, env, { email: "full@example.com", metadata: { b: 1, a: [2] } } as users.UserProfile);
  await users.insertCredential(db, env, full.id, { format: "email", email: "full@example.com" });
  await users.insertCredential(db, env, full.id, {
    format: "oauth",
    oauthProvider: "oidc",
    oauthAccountId: randomUUID(),
    oauthUsername: "octo",
    oauthEmails: ["full@example.com"],
    oauthPhotos: [],
    oauthMetadata: { login: "octo" },
    oauthAccessTokenSealed: "sealed-access",
    oauthRefreshTokenSealed: "sealed-refresh",
  } as Parameters<typeof users.insertCredential>[3]);
  const gone = await users.insertCredential(db, env, full.id, { format: "email", email: "old@example.com" });
  await db.none("UPDATE verified_credentials SET deleted_at = now() WHERE id = $1", [gone]);
  for (const [i, deleted] of [
    [1, false],
    [2, true],
    [3, false],
  ] as const) {
    const w = await wallets.insertWallet(db, env, full.id, {
      name: `w${i}`,
      chain: "EVM",
      address: `0x${String(i).repeat(40)}`,
      provider: "browserExtension",
      properties: { version: "V2" },
      additionalAddresses: [{ address: `bc1q${i}`, type: "ordinals", publicKey: `pk${i}` }],
    });
    if (deleted) await db.none("UPDATE wallets SET deleted_at = now() WHERE id = $1", [w.id]);
  }
  await db.none(
    `INSERT INTO sessions (id, environment_id, user_id, ip_address, user_agent, created_at)
     SELECT gen_random_uuid(), $1, $2, '127.0.0.1', 'ua-' || g, now() - make_interval(secs => g) FROM generate_series(1, 60) g`,
    [env, full.id],
  );
  await db.none(
    `INSERT INTO user_mfa_devices (id, environment_id, user_id, type, alias, is_default, created_at, verified_at)
     VALUES (gen_random_uuid(), $1, $2, 'totp', 'phone', true, now() - interval '1 minute', now()),
            (gen_random_uuid(), $1, $2, 'passkey', NULL, false, now(), NULL)`,
    [env, full.id],
  );
  // Plain users, one deleted, and one in another environment.
  for (let i = 0; i < 4; i++) await users.insertUser(db, env, { email: `plain${i}@example.com` } as users.UserProfile);
  const deleted = await users.insertUser(db, env, { email: "deleted@example.com" } as users.UserProfile);
  await db.none("UPDATE users SET deleted_at = now() WHERE id = $1", [deleted.id]);
  await users.insertUser(db, b.environmentId, { email: "other@example.com" } as users.UserProfile);
});
afterAll(async () => {
  await store.close();
  await closeDatabase(db);
});

describe("list page statement", () => {
  it("returns, for every user on the page, exactly the aggregate GET user reads, in the page order", async () => {
    const page = await listUserAggregates(db, a.environmentId, newestFirst, EXACT_UP_TO);
    expect(page.count).toBe(5);
    expect(page.users.map((u) => u.user.email)).toEqual(["plain3@example.com", "plain2@example.com", "plain1@example.com", "plain0@example.com", "full@example.com"]);
    for (const listed of page.users) expect(listed).toEqual(await findUserAggregate(db, a.environmentId, listed.user.id));
    const full = page.users.at(-1)!;
    expect(full.credentials.map((c) => c.format)).toEqual(["email", "oauth"]);
    expect(full.credentials[1]).toMatchObject({ oauthAccessTokenSealed: null, oauthRefreshTokenSealed: null, oauthUsername: "octo" });
    expect(full.wallets.map((w) => [w.name, w.additionalAddresses])).toEqual([
      ["w1", [{ address: "bc1q1", type: "ordinals", publicKey: "pk1" }]],
      ["w3", [{ address: "bc1q3", type: "ordinals", publicKey: "pk3" }]],
    ]);
    expect(full.sessions).toHaveLength(50);
    expect(full.sessions[0]!.userAgent).toBe("ua-1");
    expect(full.mfaDevices.map((d) => d.type)).toEqual(["totp", "passkey"]);
  });

  it("pages past the end with the count, filters, and never reads another environment's users", async () => {
    const past = await listUserAggregates(db, a.environmentId, { ...newestFirst, offset: 10 }, EXACT_UP_TO);
    expect(past).toEqual({ users: [], count: 5 });
    const filtered = await listUserAggregates(db, a.environmentId, { ...newestFirst, filter: { column: "email", value: "PLAIN" } }, EXACT_UP_TO);
    expect(filtered.users.map((u) => u.user.email).sort()).toEqual(["plain0@example.com", "plain1@example.com", "plain2@example.com", "plain3@example.com"]);
    expect(filtered.count).toBe(4);
    const other = await listUserAggregates(db, b.environmentId, { ...newestFirst, filter: { column: "email", value: "plain" } }, EXACT_UP_TO);
    expect(other).toEqual({ users: [], count: 0 });
  });

  it("counts only up to the bound plus one when asked, and not at all otherwise", async () => {
    expect((await listUserAggregates(db, a.environmentId, newestFirst, 2)).count).toBe(3);
    expect((await listUserAggregates(db, a.environmentId, newestFirst, null)).count).toBeNull();
    expect(await countUsers(db, a.environmentId, undefined)).toBe(5);
  });
});

describe("list count", () => {
  it("is exact up to the bound, and beyond it counted exactly once and kept for the next pages", async () => {
    const deps = { db, store };
    const env = a.environmentId;
    expect(await pageCount(deps, env, undefined, 5)).toBe(5);
    expect(await keptLargeCount(deps, env, undefined)).toBeNull();
    // The page statement stopped at EXACT_UP_TO + 1: the exact count is taken and kept for this filter only.
    expect(await pageCount(deps, env, undefined, EXACT_UP_TO + 1)).toBe(5);
    expect(await keptLargeCount(deps, env, undefined)).toBe(5);
    expect(await keptLargeCount(deps, env, { column: "email", value: "plain" })).toBeNull();
    expect(await keptLargeCount(deps, b.environmentId, undefined)).toBeNull();
    // While kept, pages answer with it (a large count may lag writes by a few seconds).
    await users.insertUser(db, env, { email: "later@example.com" } as users.UserProfile);
    expect((await listUsers(deps, { environmentId: env }, newestFirst)).count).toBe(5);
    expect((await listUsers(deps, { environmentId: env }, { ...newestFirst, filter: { column: "email", value: "later" } })).count).toBe(1);
  });
});
