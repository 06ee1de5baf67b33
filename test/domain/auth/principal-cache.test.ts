import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiToken } from "../../../src/crypto/api-token.js";
import { closeDatabase, type Database } from "../../../src/db/db.js";
import { authenticateApiToken, tokenCacheKey } from "../../../src/domain/auth/api-token-auth.js";
import { EPOCH_CHECK_MS } from "../../../src/domain/auth/principal-cache.js";
import { bootstrapTenant } from "../../../src/domain/tenancy/bootstrap.js";
import { dropCachedPrincipals } from "../../../src/domain/tokens/cache.js";
import { createStore, type EphemeralStore } from "../../../src/store/store.js";
import { testEnv } from "../../setup/env.js";
import { migratedDatabase } from "../../support/app.js";

/** A store that counts the reads of token principals (the shared cache), to see the in-process cache work. */
function counting(store: EphemeralStore) {
  const counts = { principalReads: 0 };
  const wrapped: EphemeralStore = Object.assign(Object.create(store) as EphemeralStore, {
    get: (key: string) => {
      if (key.startsWith("apitoken:") && key !== "apitoken:epoch") counts.principalReads++;
      return store.get(key);
    },
  });
  return { store: wrapped, counts };
}

describe("in-process principal cache: fast, and revocation still bounded", () => {
  let db: Database;
  // Two replicas of one deployment: the same Redis (and prefix), the same database, a cache each.
  let a: EphemeralStore;
  let b: EphemeralStore;
  beforeAll(async () => {
    db = await migratedDatabase();
    const prefix = `test:${randomUUID()}:`;
    a = await createStore(testEnv().redisUrl, { keyPrefix: prefix });
    b = await createStore(testEnv().redisUrl, { keyPrefix: prefix });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await closeDatabase(db);
  });

  const revoke = async (token: string, by: EphemeralStore) => {
    const hash = hashApiToken(token);
    await db.none("UPDATE api_tokens SET deleted_at = now() WHERE token_hash = $1", [hash]);
    await dropCachedPrincipals({ store: by }, [hash]);
  };

  it("a known token is served from the process without a read of the shared cache", async () => {
    const { token } = await bootstrapTenant(db);
    const replica = counting(a);
    const first = await authenticateApiToken({ db, store: replica.store }, `Bearer ${token}`);
    const reads = replica.counts.principalReads;
    for (let i = 0; i < 20; i++) expect(await authenticateApiToken({ db, store: replica.store }, `Bearer ${token}`)).toEqual(first);
    expect(replica.counts.principalReads).toBe(reads);
  });

  it("a token revoked on this replica stops at once here", async () => {
    const { token } = await bootstrapTenant(db);
    await authenticateApiToken({ db, store: a }, `Bearer ${token}`);
    await revoke(token, a);
    await expect(authenticateApiToken({ db, store: a }, `Bearer ${token}`)).rejects.toMatchObject({ kind: "unauthenticated" });
  });

  it(`a token revoked on another replica stops here within ${EPOCH_CHECK_MS} ms`, async () => {
    const { token } = await bootstrapTenant(db);
    await authenticateApiToken({ db, store: b }, `Bearer ${token}`);
    await authenticateApiToken({ db, store: b }, `Bearer ${token}`); // cached in b's process cache now
    await revoke(token, a);
    await sleep(EPOCH_CHECK_MS + 50); // time is the subject: the bound within which the revocation is seen
    await expect(authenticateApiToken({ db, store: b }, `Bearer ${token}`)).rejects.toMatchObject({ kind: "unauthenticated" });
    expect(await b.get(tokenCacheKey(hashApiToken(token)))).toBeNull();
  });

  it("a revocation that lands during another replica's read of the shared cache is still seen within the bound", async () => {
    const { token } = await bootstrapTenant(db);
    const hash = hashApiToken(token);
    await authenticateApiToken({ db, store: a }, `Bearer ${token}`); // in the shared cache now
    let raced = false;
    // Replica b (one store object, so one process cache) reads the shared cache, and the revocation lands
    // right after that read, before b keeps what it read.
    const racing: EphemeralStore = Object.assign(Object.create(b) as EphemeralStore, {
      get: async (key: string) => {
        const value = await b.get(key);
        if (key === tokenCacheKey(hash) && !raced) {
          raced = true;
          await revoke(token, a);
        }
        return value;
      },
    });
    await authenticateApiToken({ db, store: racing }, `Bearer ${token}`); // the read from before the revocation
    expect(raced).toBe(true);
    await sleep(EPOCH_CHECK_MS + 50); // time is the subject: the bound within which the revocation is seen
    await expect(authenticateApiToken({ db, store: racing }, `Bearer ${token}`)).rejects.toMatchObject({ kind: "unauthenticated" });
  });
});
