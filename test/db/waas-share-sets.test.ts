import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { closeDatabase, type Database } from "../../src/db/db.js";
import { insertRoom } from "../../src/db/repositories/waas-rooms.js";
import {
  currentSet,
  destroyRetiredShares,
  insertFirstSet,
  insertPendingSet,
  listSets,
  lockSetForSigning,
  promoteSet,
  setShares,
  userWalletCurrentSet,
} from "../../src/db/repositories/waas-share-sets.js";
import { bootstrapTenant } from "../../src/domain/tenancy/bootstrap.js";
import { migratedDatabase } from "../support/app.js";

// The share-set repository against the real Postgres: epochs, one current set per wallet whatever runs
// concurrently, destruction of retired shares, and the environment scoping of every function.

let db: Database;
let env: string;
let otherEnv: string;
beforeAll(async () => {
  db = await migratedDatabase();
  const t = await bootstrapTenant(db, { ownerEmail: `share-sets-${randomUUID()}@example.com` });
  env = t.environmentId;
  otherEnv = t.liveEnvironmentId;
});
afterAll(() => closeDatabase(db));

async function wallet(): Promise<string> {
  const id = randomUUID();
  await db.none(
    `INSERT INTO waas_wallets (id, environment_id, chain, address, public_key, private_key_sealed) VALUES ($1, $2, 'EVM', $3, '02ab', NULL)`,
    [id, env, `0x${randomUUID().replace(/-/g, "").padEnd(40, "0")}`],
  );
  return id;
}

const pending = (walletId: string, operationId: string = randomUUID()) =>
  insertPendingSet(db, env, {
    id: randomUUID(),
    walletId,
    operationId,
    curve: "secp256k1",
    threshold: 2,
    holders: 2,
    commitments: ["02aa", "02bb"],
    shares: [
      { holderIndex: 1, shareSealed: "v1.k.sealed" },
      { holderIndex: 2, encryptedForHolder: "hs1.encrypted" },
    ],
  });

it("numbers sets by epoch, finds an operation's set again instead of writing a second", async () => {
  const w = await wallet();
  const a = await pending(w, "op-1");
  const again = await pending(w, "op-1");
  expect(again.created).toBe(false);
  expect(again.set.id).toBe(a.set.id);
  const b = await pending(w, "op-2");
  expect([a.set.epoch, b.set.epoch]).toEqual([1, 2]);
  expect(await currentSet(db, env, w)).toBeNull();
});

it("promotes in one transaction: the previous current and abandoned pending sets retire; promoting again is a no-op", async () => {
  const w = await wallet();
  const first = (await pending(w)).set;
  expect(await promoteSet(db, env, w, first.id)).toEqual({ promoted: true, retiredSetIds: [] });
  const abandoned = (await pending(w)).set;
  const second = (await pending(w)).set;
  const r = await promoteSet(db, env, w, second.id);
  expect(r.promoted).toBe(true);
  expect(r.retiredSetIds.sort()).toEqual([first.id, abandoned.id].sort());
  expect(await promoteSet(db, env, w, second.id)).toEqual({ promoted: true, retiredSetIds: [] });
  // A retired set never comes back.
  expect(await promoteSet(db, env, w, first.id)).toEqual({ promoted: false, retiredSetIds: [] });
  expect((await listSets(db, env, w)).map((s) => s.status)).toEqual(["retired", "retired", "current"]);
});

it("lets exactly one of two concurrent promotions of one wallet win", async () => {
  const w = await wallet();
  const sets = [(await pending(w)).set, (await pending(w)).set];
  for (let round = 0; round < 5; round++) {
    const a = (await pending(w)).set;
    const b = (await pending(w)).set;
    const results = await Promise.all([promoteSet(db, env, w, a.id), promoteSet(db, env, w, b.id)]);
    expect(results.filter((r) => r.promoted).length).toBe(1);
    const all = await listSets(db, env, w);
    expect(all.filter((s) => s.status === "current").length).toBe(1);
    sets.push(a, b);
  }
  // And the database itself refuses a second current set.
  const extra = (await pending(w)).set;
  await expect(db.none("UPDATE waas_share_sets SET status = 'current', current_at = now() WHERE id = $1", [extra.id])).rejects.toThrow(/waas_share_sets_one_current_idx/);
});

it("destroys only retired sets' shares, once, and stamps them", async () => {
  const w = await wallet();
  const old = (await pending(w)).set;
  await promoteSet(db, env, w, old.id);
  const cur = (await pending(w)).set;
  await promoteSet(db, env, w, cur.id);
  expect(await destroyRetiredShares(db, env, w)).toBe(2);
  expect(await destroyRetiredShares(db, env, w)).toBe(0);
  const gone = await setShares(db, env, old.id);
  expect(gone.every((s) => s.destroyedAt !== null && s.shareSealed === null && s.encryptedForHolder === null)).toBe(true);
  const kept = await setShares(db, env, cur.id);
  expect(kept.map((s) => [s.shareSealed, s.encryptedForHolder])).toEqual([
    ["v1.k.sealed", null],
    [null, "hs1.encrypted"],
  ]);
  // A share row holds exactly one form of the share while alive.
  await expect(db.none("UPDATE waas_share_set_shares SET encrypted_for_holder = 'x' WHERE share_set_id = $1 AND holder_index = 1", [cur.id])).rejects.toThrow(
    /check/i,
  );
});

it("scopes every function by environment: another environment sees, promotes and destroys nothing", async () => {
  const w = await wallet();
  const set = (await pending(w)).set;
  await expect(insertPendingSet(db, otherEnv, { ...set, shares: [], id: randomUUID(), operationId: "x" })).rejects.toThrow(/no wallet/);
  expect(await promoteSet(db, otherEnv, w, set.id)).toEqual({ promoted: false, retiredSetIds: [] });
  await promoteSet(db, env, w, set.id);
  expect(await currentSet(db, otherEnv, w)).toBeNull();
  expect(await listSets(db, otherEnv, w)).toEqual([]);
  expect(await setShares(db, otherEnv, set.id)).toEqual([]);
  expect(await destroyRetiredShares(db, otherEnv, w)).toBe(0);
  expect((await currentSet(db, env, w))?.id).toBe(set.id);
});

it("writes a new wallet's first set current at once, with all its shares; finds and locks the current set in its environment only", async () => {
  const userId = randomUUID();
  await db.none("INSERT INTO users (id, environment_id) VALUES ($1, $2)", [userId, env]);
  const w = await wallet();
  await db.none("UPDATE waas_wallets SET user_id = $2 WHERE id = $1", [w, userId]);
  const first = await insertFirstSet(db, env, {
    id: randomUUID(),
    walletId: w,
    operationId: "keygen:1",
    curve: "secp256k1",
    threshold: 2,
    holders: 3,
    commitments: ["02aa", "02bb"],
    shares: [
      { holderIndex: 1, shareSealed: "v1.k.sealed" },
      { holderIndex: 2, encryptedForHolder: "hs1.two", holderKeygenId: "k2" },
      { holderIndex: 3, encryptedForHolder: "hs1.three", holderKeygenId: "k3" },
    ],
  });
  expect([first.epoch, first.status]).toEqual([1, "current"]);
  expect((await setShares(db, env, first.id)).map((s) => [s.holderIndex, s.shareSealed, s.encryptedForHolder, s.holderKeygenId])).toEqual([
    [1, "v1.k.sealed", null, null],
    [2, null, "hs1.two", "k2"],
    [3, null, "hs1.three", "k3"],
  ]);
  expect((await userWalletCurrentSet(db, env, userId, w))?.set.id).toBe(first.id);
  expect(await userWalletCurrentSet(db, otherEnv, userId, w)).toBeNull();
  expect(await userWalletCurrentSet(db, env, randomUUID(), w)).toBeNull();
  // A signature's read: the set locked, the server's sealed share, the room's sealed key and nonces.
  const room = await insertRoom(db, {
    id: randomUUID(),
    environmentId: env,
    userId,
    walletId: w,
    operation: "sign",
    request: {},
    serverKeygenId: "room-key",
    serverKeySealed: "v1.room.sealed",
    shareSetId: first.id,
    ttlSeconds: 600,
    keepSeconds: 86_400,
  });
  const material = await lockSetForSigning(db, env, w, first.id, room.id, 1);
  expect([material?.set.id, material?.serverShareSealed, material?.room]).toEqual([first.id, "v1.k.sealed", { keySealed: "v1.room.sealed", noncesSealed: null }]);
  // Another holder's share is never the server's; a room that is not there reads as none.
  expect((await lockSetForSigning(db, env, w, first.id, room.id, 2))?.serverShareSealed).toBeNull();
  expect((await lockSetForSigning(db, env, w, first.id, randomUUID(), 1))?.room).toBeNull();
  expect(await lockSetForSigning(db, otherEnv, w, first.id, room.id, 1)).toBeNull();
  // Once a promotion retires it, the set is not there to lock (a signature of it is stale).
  const next = (await pending(w)).set;
  await promoteSet(db, env, w, next.id);
  expect(await lockSetForSigning(db, env, w, first.id, room.id, 1)).toBeNull();
  expect((await userWalletCurrentSet(db, env, userId, w))?.set.id).toBe(next.id);
});
