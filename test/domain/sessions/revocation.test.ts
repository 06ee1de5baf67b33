import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDatabase, type Database } from "../../../src/db/db.js";
import * as sessions from "../../../src/db/repositories/sessions.js";
import { openSessionAndFindUser } from "../../../src/db/repositories/user-aggregate.js";
import * as users from "../../../src/db/repositories/users.js";
import { isSessionRevoked, markSessionsRevoked } from "../../../src/domain/sessions/revocation.js";
import { bootstrapTenant, type BootstrapResult } from "../../../src/domain/tenancy/bootstrap.js";
import { MemoryStore } from "../../../src/store/memory-store.js";
import { createStore, type EphemeralStore } from "../../../src/store/store.js";
import { testEnv } from "../../setup/env.js";
import { migratedDatabase } from "../../support/app.js";

/** A database that counts the session reads, to see the store spare them (and the fallback make them). */
function counting(db: Database) {
  const counts = { reads: 0 };
  const wrapped = Object.assign(Object.create(db) as Database, {
    // A string, or a prepared statement (src/db/db.ts prepared()) carrying its text.
    oneOrNone: (query: string | { text: string }, values?: unknown) => {
      if ((typeof query === "string" ? query : query.text).includes("FROM sessions")) counts.reads++;
      return db.oneOrNone(query as never, values);
    },
  });
  return { db: wrapped, counts };
}

describe("session revocation: Postgres decides, the store only remembers", () => {
  let db: Database;
  let t: BootstrapResult;
  let redis: EphemeralStore;

  beforeAll(async () => {
    db = await migratedDatabase();
    t = await bootstrapTenant(db);
    redis = await createStore(testEnv().redisUrl, { keyPrefix: `test:${randomUUID()}:` });
  });
  afterAll(async () => {
    await redis.close();
    await closeDatabase(db);
  });

  async function session() {
    const u = await users.insertUser(db, t.environmentId, { email: `rev-${randomUUID()}@example.com` });
    const id = randomUUID();
    const expiresAt = new Date(Date.now() + 3_600_000);
    const row = { id, ipAddress: null, userAgent: null, expiresAt, scope: "user:basic", pendingScope: null, refreshId: randomUUID(), firstFactor: { kind: "email", id: null } };
    await openSessionAndFindUser(db, t.environmentId, u.id, { credentialId: null }, row, []);
    return { environmentId: t.environmentId, userId: u.id, sessionId: id, expiresAt: Math.floor(expiresAt.getTime() / 1000) };
  }

  for (const [name, fresh] of [
    ["Redis", () => redis],
    ["the in-process store", () => new MemoryStore()],
  ] as const) {
    it(`${name}: a live session is read from Postgres once, then answered from the store`, async () => {
      const store = fresh();
      const { db: watched, counts } = counting(db);
      const s = await session();
      expect(await isSessionRevoked({ store, db: watched }, s)).toBe(false);
      expect(await isSessionRevoked({ store, db: watched }, s)).toBe(false);
      expect(counts.reads).toBe(1);
    });

    it(`${name}: a revocation the store never heard of (or forgot) is found in Postgres, and remembered`, async () => {
      const store = fresh();
      const { db: watched, counts } = counting(db);
      const s = await session();
      expect(await isSessionRevoked({ store, db: watched }, s)).toBe(false);
      await sessions.revokeUserSession(db, s.environmentId, s.userId, s.sessionId);
      // Known live a moment ago: the marker of the revocation (written after its commit) overrides it.
      await markSessionsRevoked(store, [{ id: s.sessionId, expiresAt: new Date(s.expiresAt * 1000) }]);
      expect(await isSessionRevoked({ store, db: watched }, s)).toBe(true);
      // The store forgets everything (a restart, FLUSHALL): Postgres still says revoked.
      const empty = new MemoryStore();
      expect(await isSessionRevoked({ store: empty, db: watched }, s)).toBe(true);
      const reads = counts.reads;
      expect(await isSessionRevoked({ store: empty, db: watched }, s)).toBe(true);
      expect(counts.reads).toBe(reads);
    });
  }

  it("deleted users, softly or for good, and another environment's view are refused from Postgres", async () => {
    const soft = await session();
    await db.none("UPDATE users SET deleted_at = now() WHERE id = $1", [soft.userId]);
    expect(await isSessionRevoked({ store: new MemoryStore(), db }, soft)).toBe(true);
    const hard = await session();
    await db.none("DELETE FROM users WHERE id = $1", [hard.userId]);
    expect(await isSessionRevoked({ store: new MemoryStore(), db }, hard)).toBe(true);
    const other = await bootstrapTenant(db);
    const s = await session();
    expect(await isSessionRevoked({ store: new MemoryStore(), db }, { ...s, environmentId: other.environmentId })).toBe(true);
  });

  it("a check that read 'live' just before a revocation cannot write over the revocation's marker", async () => {
    const store = new MemoryStore();
    const s = await session();
    // The revocation commits and writes its marker between the check's read and its write.
    const racing = Object.assign(Object.create(db) as Database, {
      oneOrNone: async (query: string, values?: unknown) => {
        const row = await db.oneOrNone(query, values);
        await sessions.revokeUserSession(db, s.environmentId, s.userId, s.sessionId);
        await markSessionsRevoked(store, [{ id: s.sessionId, expiresAt: null }]);
        return row;
      },
    });
    expect(await isSessionRevoked({ store, db: racing }, s)).toBe(false);
    expect(await store.get(`session:state:${s.sessionId}`)).toBe("revoked");
    expect(await isSessionRevoked({ store, db }, s)).toBe(true);
  });
});
