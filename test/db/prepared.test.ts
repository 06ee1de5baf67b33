import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDatabase, prepared, type Database } from "../../src/db/db.js";
import { findWalletOwner } from "../../src/db/repositories/sign-in.js";
import { bootstrapTenant, type BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { migratedDatabase } from "../support/app.js";

let db: Database;
let t: BootstrapResult;

beforeAll(async () => {
  db = await migratedDatabase();
  t = await bootstrapTenant(db);
});
afterAll(() => closeDatabase(db));

describe("prepared statements", () => {
  it("refuse a name already prepared with another text, at definition rather than at the first call", () => {
    const name = `test-prepared-${randomUUID()}`;
    prepared(name, "SELECT 1");
    expect(() => prepared(name, "SELECT 1")).not.toThrow();
    expect(() => prepared(name, "SELECT 2")).toThrow(/used for two statements/);
  });

  it("send their values as parameters: text that would break formatted SQL is only a value, on every pooled connection", async () => {
    const echo = prepared(`test-echo-${randomUUID()}`, "SELECT $1::text AS v, $2::uuid AS id, $3::jsonb AS j");
    const id = randomUUID();
    const tricky = "'); DROP TABLE users; --";
    // More calls than the pool has connections and than Postgres's five custom plans before a generic one.
    const rows = await Promise.all(Array.from({ length: 40 }, () => db.one(echo([tricky, id, { a: [1, "x"] }]))));
    for (const r of rows) expect(r).toEqual({ v: tricky, id, j: { a: [1, "x"] } });
    expect((await db.one("SELECT to_regclass('users') IS NOT NULL AS there")).there).toBe(true);
  });

  it("look a wallet up by one or two chain names, never by none or three", async () => {
    const address = "0x0000000000000000000000000000000000000001";
    expect(await findWalletOwner(db, t.environmentId, ["EVM", "ETH"], address)).toBeNull();
    expect(await findWalletOwner(db, t.environmentId, ["SOL"], address)).toBeNull();
    await expect(findWalletOwner(db, t.environmentId, [], address)).rejects.toThrow(/one or two chain names/);
    await expect(findWalletOwner(db, t.environmentId, ["EVM", "ETH", "SOL"], address)).rejects.toThrow(/one or two chain names/);
  });
});
