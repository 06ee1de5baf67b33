import { randomBytes, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { recoverAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSealer } from "../../../src/crypto/seal.js";
import { closeDatabase, type Database, type Queryable } from "../../../src/db/db.js";
import { findRoom } from "../../../src/db/repositories/waas-rooms.js";
import { currentSet, insertPendingSet, promoteSet } from "../../../src/db/repositories/waas-share-sets.js";
import { bootstrapTenant } from "../../../src/domain/tenancy/bootstrap.js";
import { createWalletInRoom } from "../../../src/domain/waas/threshold/key-generation.js";
import { openKeygenRoomOnce, openRoom, takeContribution, type RoomRecord } from "../../../src/domain/waas/threshold/rooms.js";
import type { ShareSetView } from "../../../src/domain/waas/threshold/share-operations.js";
import { signInRoom } from "../../../src/domain/waas/threshold/signing.js";
import { DomainError } from "../../../src/errors.js";
import { migratedDatabase } from "../../support/app.js";
import { TestDevice, type RoomView } from "../../support/waas-device.js";

// The rule that lets signatures leave the wallet's actor, against the real Postgres: a signature holds its
// room's share set FOR SHARE from the epoch check to its commit, so a promotion (refresh, reshare) waits for
// the signatures in flight, and a signature after (or during) a promotion is 409 room_stale, never made with
// the retired set. Each step is held open on purpose to fix the interleaving.

let db: Database;
let environmentId: string;
let userId: string;
let audit: Record<string, string>;
const sealer = createSealer([{ id: "test", key: randomBytes(32) }]);

beforeAll(async () => {
  db = await migratedDatabase();
  const t = await bootstrapTenant(db, { ownerEmail: `waas-epochs-${randomUUID()}@example.com` });
  environmentId = t.environmentId;
  audit = { organizationId: t.organizationId, projectId: t.projectId, environmentName: "sandbox", requestId: "" };
  userId = randomUUID();
  await db.none("INSERT INTO users (id, environment_id) VALUES ($1, $2)", [userId, environmentId]);
});
afterAll(async () => {
  if (db) await closeDatabase(db);
});

const view = (r: RoomRecord): RoomView => ({
  roomId: r.id,
  walletId: r.walletId ?? "",
  operation: r.operation,
  status: r.status,
  serverKeygenIds: [r.serverKeygenId],
  request: r.request,
  serverCommitments: r.serverCommitments ?? {},
  ...(r.result ? { result: r.result } : {}),
});

async function newWallet() {
  const device = new TestDevice("1234", 1 << 10);
  const request = { chain: "EVM", scheme: "TWO_OF_TWO", clientKeygenIds: device.keygenIds(1), audit };
  const done = await db.tx(async (t) => createWalletInRoom(t, sealer, await openKeygenRoomOnce(t, sealer, { environmentId, userId, walletId: randomUUID(), request })));
  await device.receive(done.result!.shareSet as ShareSetView);
  return { walletId: done.walletId!, address: done.result!.address as `0x${string}`, device };
}

const digest = `0x${"ab".repeat(32)}` as const;

/** A signing room opened against the wallet's current set, with the device's shares in it. */
async function contributedRoom(w: Awaited<ReturnType<typeof newWallet>>): Promise<RoomRecord> {
  const set = (await currentSet(db, environmentId, w.walletId))!;
  const room = await openRoom(db, sealer, { environmentId, userId, walletId: w.walletId, operation: "sign", request: { scheme: "ecdsa", digest, kind: "message", audit }, shareSetId: set.id });
  return takeContribution(db, environmentId, userId, room.id, await w.device.sharesContribution(view(room)));
}

/** The next set of the wallet, pending (what a refresh writes before it promotes). */
async function pendingSet(walletId: string): Promise<string> {
  const cur = (await currentSet(db, environmentId, walletId))!;
  const id = randomUUID();
  await insertPendingSet(db, environmentId, { id, walletId, operationId: `refresh-${id}`, curve: cur.curve, threshold: cur.threshold, holders: cur.holders, commitments: cur.commitments, shares: [] });
  return id;
}

/** A transaction held open after `work` until `release` is called. */
function held<T>(work: (t: Queryable) => Promise<T>) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let did!: (v: T) => void;
  const worked = new Promise<T>((r) => (did = r));
  const committed = db.tx(async (t) => {
    const v = await work(t);
    did(v);
    await gate;
    return v;
  });
  return { worked, committed, release };
}

const settledWithin = async (p: Promise<unknown>, ms: number) => Promise.race([p.then(() => true, () => true), sleep(ms).then(() => false)]);
const codeOf = (p: Promise<unknown>) => p.then(() => "signed", (e: unknown) => (e instanceof DomainError ? e.code : String(e)));

describe("a signature and a promotion of the same wallet", () => {
  it("the promotion waits for a signature in flight; a signature of the old set after it is 409 room_stale", async () => {
    const w = await newWallet();
    const before = await contributedRoom(w);
    const after = await contributedRoom(w);
    const next = await pendingSet(w.walletId);
    const signing = held((t) => signInRoom(t, sealer, before));
    await signing.worked;
    const promotion = promoteSet(db, environmentId, w.walletId, next);
    expect(await settledWithin(promotion, 500)).toBe(false);
    signing.release();
    const signed = await signing.committed;
    expect((await promotion).promoted).toBe(true);
    expect(await recoverAddress({ hash: digest, signature: signed.result!.signature as `0x${string}` })).toBe(w.address);
    expect(await codeOf(db.tx((t) => signInRoom(t, sealer, after)))).toBe("room_stale");
    expect((await findRoom(db, environmentId, after.id))!.status).toBe("contributed");
  });

  it("a signature arriving while a promotion is uncommitted waits for it and is 409 room_stale", async () => {
    const w = await newWallet();
    const room = await contributedRoom(w);
    const next = await pendingSet(w.walletId);
    const promotion = held((t) => promoteSet(t, environmentId, w.walletId, next));
    await promotion.worked;
    const signing = codeOf(db.tx((t) => signInRoom(t, sealer, room)));
    expect(await settledWithin(signing, 500)).toBe(false);
    promotion.release();
    await promotion.committed;
    expect(await signing).toBe("room_stale");
  });

  it("signatures do not wait for each other", async () => {
    const w = await newWallet();
    const a = await contributedRoom(w);
    const b = await contributedRoom(w);
    const first = held((t) => signInRoom(t, sealer, a));
    await first.worked;
    const second = db.tx((t) => signInRoom(t, sealer, b));
    expect(await settledWithin(second, 2_000)).toBe(true);
    first.release();
    await first.committed;
    expect((await second).status).toBe("done");
  });
});
