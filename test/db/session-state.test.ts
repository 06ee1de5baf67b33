import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDatabase, type Database } from "../../src/db/db.js";
import { EVENTS_CHANNEL } from "../../src/db/repositories/events.js";
import { openSessionAndFindUser, type NewSessionRow } from "../../src/db/repositories/user-aggregate.js";
import { changeRows } from "../../src/domain/audit/audit.js";
import { endUserAccess } from "../../src/domain/sessions/service.js";
import * as sessions from "../../src/db/repositories/sessions.js";
import * as spent from "../../src/db/repositories/spent-credentials.js";
import * as users from "../../src/db/repositories/users.js";
import { bootstrapTenant, type BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { spendOnce } from "../../src/domain/spent-credentials/service.js";
import { migratedDatabase } from "../support/app.js";

// What Postgres keeps so that a store that forgets reopens no door: sessions' liveness and refresh
// generations, and spent single-use credentials; each only within its environment. And how a sign-in
// writes a session.
let db: Database;
let a: BootstrapResult;
let b: BootstrapResult;

beforeAll(async () => {
  db = await migratedDatabase();
  a = await bootstrapTenant(db);
  b = await bootstrapTenant(db);
});
afterAll(() => closeDatabase(db));

const inAnHour = () => new Date(Date.now() + 3_600_000);

async function newSession(environmentId: string) {
  const u = await users.insertUser(db, environmentId, { email: `state-${randomUUID()}@example.com` });
  const opened = row();
  await openSessionAndFindUser(db, environmentId, u.id, { credentialId: null }, opened, []);
  return { id: opened.id, userId: u.id, refreshId: opened.refreshId };
}

describe("spent credentials", () => {
  it("spend once per environment and kind; of concurrent spends exactly one wins", async () => {
    const digest = randomUUID();
    expect(await spent.spendCredential(db, a.environmentId, "external_jwt", digest, inAnHour())).toBe(true);
    expect(await spent.spendCredential(db, a.environmentId, "external_jwt", digest, inAnHour())).toBe(false);
    // Another environment, another kind: their own namespaces.
    expect(await spent.spendCredential(db, b.environmentId, "external_jwt", digest, inAnHour())).toBe(true);
    expect(await spent.spendCredential(db, a.environmentId, "chat_login", digest, inAnHour())).toBe(true);
    const raced = randomUUID();
    const wins = await Promise.all(Array.from({ length: 8 }, () => spent.spendCredential(db, a.environmentId, "chat_login", raced, inAnHour())));
    expect(wins.filter(Boolean)).toHaveLength(1);
  });

  it("a mark past its expiry is taken over and cleaned up; a live one stays", async () => {
    const old = randomUUID();
    const live = randomUUID();
    await spent.spendCredential(db, a.environmentId, "waas_backup_token", old, new Date(Date.now() - 1_000));
    await spent.spendCredential(db, a.environmentId, "waas_backup_token", live, inAnHour());
    expect(await spent.spendCredential(db, a.environmentId, "waas_backup_token", old, new Date(Date.now() - 1_000))).toBe(true);
    // Cleaning B's environment leaves A's marks alone.
    await spent.deleteExpiredSpentCredentials(db, b.environmentId, 100);
    const countOf = async (digest: string) =>
      Number((await db.one("SELECT count(*) AS n FROM spent_credentials WHERE environment_id = $1 AND digest = $2", [a.environmentId, digest])).n);
    expect(await countOf(old)).toBe(1);
    expect(await spent.deleteExpiredSpentCredentials(db, a.environmentId, 100)).toBeGreaterThanOrEqual(1);
    expect([await countOf(old), await countOf(live)]).toEqual([0, 1]);
  });

  it("spendOnce keeps a digest, never the credential, until the credential's expiry and a slack", async () => {
    const credential = `header.payload.${randomUUID()}`;
    const exp = Math.floor(Date.now() / 1000) + 300;
    expect(await spendOnce(db, a.environmentId, "external_jwt", credential, exp)).toBe(true);
    expect(await spendOnce(db, a.environmentId, "external_jwt", credential, exp)).toBe(false);
    const rows = await db.any("SELECT digest, expires_at FROM spent_credentials WHERE environment_id = $1 AND kind = 'external_jwt'", [a.environmentId]);
    expect(rows.some((r) => r.digest.includes(credential))).toBe(false);
    expect(rows.some((r) => Math.round(r.expires_at.getTime() / 1000) >= exp + 60)).toBe(true);
  });
});

describe("sessions", () => {
  it("findLiveSession: live only while not revoked and its user is there, and only within its environment", async () => {
    const s = await newSession(a.environmentId);
    expect(await sessions.findLiveSession(db, a.environmentId, s.userId, s.id)).not.toBeNull();
    expect(await sessions.findLiveSession(db, b.environmentId, s.userId, s.id)).toBeNull();
    await sessions.revokeUserSession(db, a.environmentId, s.userId, s.id);
    expect(await sessions.findLiveSession(db, a.environmentId, s.userId, s.id)).toBeNull();

    const softly = await newSession(a.environmentId);
    await db.none("UPDATE users SET deleted_at = now() WHERE id = $1", [softly.userId]);
    expect(await sessions.findLiveSession(db, a.environmentId, softly.userId, softly.id)).toBeNull();
    const gone = await newSession(a.environmentId);
    await db.none("DELETE FROM users WHERE id = $1", [gone.userId]);
    expect(await sessions.findLiveSession(db, a.environmentId, gone.userId, gone.id)).toBeNull();
  });

  it("rotateRefresh spends the presented generation once, never across environments, never past the absolute end", async () => {
    const s = await newSession(a.environmentId);
    const rotation = (presented: string | null, maxAgeSeconds = 3600) => ({ presented, next: randomUUID(), lifetimeSeconds: 7200, maxAgeSeconds });
    expect(await sessions.rotateRefresh(db, b.environmentId, s.userId, s.id, rotation(s.refreshId))).toBeNull();
    const r = rotation(s.refreshId);
    const rotated = await sessions.rotateRefresh(db, a.environmentId, s.userId, s.id, r);
    // A 2-hour lifetime is cut at the session's 1-hour absolute end.
    expect(rotated!.expiresAt!.getTime()).toBeLessThanOrEqual(Date.now() + 3_600_000 + 1_000);
    expect(await sessions.rotateRefresh(db, a.environmentId, s.userId, s.id, rotation(s.refreshId))).toBeNull();
    expect(await sessions.refreshRefusal(db, a.environmentId, s.userId, s.id, 3600)).toMatchObject({ kind: "spent" });
    await db.none("UPDATE sessions SET created_at = now() - interval '2 seconds' WHERE id = $1", [s.id]);
    expect(await sessions.rotateRefresh(db, a.environmentId, s.userId, s.id, rotation(r.next, 1))).toBeNull();
    expect(await sessions.refreshRefusal(db, a.environmentId, s.userId, s.id, 1)).toEqual({ kind: "too_old" });
    expect(await sessions.refreshRefusal(db, b.environmentId, s.userId, s.id, 3600)).toEqual({ kind: "not_live" });
  });
});

// A sign-in's one statement (no transaction around it for a returning user): the visit, the session, the
// audit rows and events, and the read of the user, all or nothing.
const row = (): NewSessionRow => ({
  id: randomUUID(),
  ipAddress: "127.0.0.1",
  userAgent: "test",
  expiresAt: new Date(Date.now() + 3_600_000),
  scope: "user:basic",
  pendingScope: null,
  refreshId: randomUUID(),
  firstFactor: { kind: "wallet", id: null },
});

function sessionCreated(tenant: BootstrapResult, userId: string, sessionId: string) {
  const access = endUserAccess({ environmentId: tenant.environmentId, organizationId: tenant.organizationId, projectId: tenant.projectId } as never, userId, "req-1");
  return changeRows(access, [{ action: "user.session.created", resourceType: "session", resourceId: sessionId, after: { userId, method: "wallet" } }]);
}

const written = async (sessionId: string) => ({
  sessions: Number((await db.one("SELECT count(*) AS n FROM sessions WHERE id = $1", [sessionId])).n),
  audits: Number((await db.one("SELECT count(*) AS n FROM audit_log WHERE resource_id = $1", [sessionId])).n),
  events: Number((await db.one("SELECT count(*) AS n FROM events WHERE resource_id = $1", [sessionId])).n),
});

describe("openSessionAndFindUser", () => {
  it("writes the visit, the session, its audit row and event, wakes the outbox, and answers the user", async () => {
    const user = await users.insertUser(db, a.environmentId, {});
    const s = row();
    const listener = await db.connect({ direct: true });
    const notified: string[] = [];
    listener.client.on("notification", (m) => notified.push(m.payload ?? ""));
    await listener.none("LISTEN $1:name", [EVENTS_CHANNEL]);
    try {
      const read = await openSessionAndFindUser(db, a.environmentId, user.id, { credentialId: null }, s, sessionCreated(a, user.id, s.id));
      expect(read?.user.id).toBe(user.id);
      expect(read?.user.lastVisit).toBeInstanceOf(Date);
      expect(await written(s.id)).toEqual({ sessions: 1, audits: 1, events: 1 });
      const stored = await db.one("SELECT user_id, environment_id, refresh_id, first_factor_kind FROM sessions WHERE id = $1", [s.id]);
      expect(stored).toEqual({ user_id: user.id, environment_id: a.environmentId, refresh_id: s.refreshId, first_factor_kind: "wallet" });
      await expect.poll(() => notified).toContain(a.environmentId);
    } finally {
      await listener.done(true);
    }
  });

  it("writes nothing for a user deleted meanwhile, or named in another environment", async () => {
    const gone = await users.insertUser(db, a.environmentId, {});
    await db.none("UPDATE users SET deleted_at = now() WHERE id = $1", [gone.id]);
    const s1 = row();
    expect(await openSessionAndFindUser(db, a.environmentId, gone.id, { credentialId: null }, s1, sessionCreated(a, gone.id, s1.id))).toBeNull();
    expect(await written(s1.id)).toEqual({ sessions: 0, audits: 0, events: 0 });

    const other = await users.insertUser(db, b.environmentId, {});
    const s2 = row();
    expect(await openSessionAndFindUser(db, a.environmentId, other.id, { credentialId: null }, s2, sessionCreated(a, other.id, s2.id))).toBeNull();
    expect(await written(s2.id)).toEqual({ sessions: 0, audits: 0, events: 0 });
  });
});
