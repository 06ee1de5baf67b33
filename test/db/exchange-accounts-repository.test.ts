import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDatabase, type Database } from "../../src/db/db.js";
import * as links from "../../src/db/repositories/exchange-accounts.js";
import { insertExchange } from "../../src/db/repositories/exchanges.js";
import { insertUser } from "../../src/db/repositories/users.js";
import { bootstrapTenant, type BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { migratedDatabase } from "../support/app.js";

// Contract: given tenant B's id, the exchange-account links repository neither reads nor writes tenant A's rows.
let db: Database;
let a: BootstrapResult;
let b: BootstrapResult;

beforeAll(async () => {
  db = await migratedDatabase();
  a = await bootstrapTenant(db);
  b = await bootstrapTenant(db);
});
afterAll(() => closeDatabase(db));

const exchangeOf = (environmentId: string) =>
  insertExchange(db, environmentId, {
    id: randomUUID(), exchange: "generic", displayName: null, apiBaseUrl: "https://exchange.example", apiKeySealed: null, apiSecretSealed: null,
    passphraseSealed: null, apiKeyHint: null, socialProvider: null, onRampProvider: "commerce",
  });
const link = (exchangeId: string, userId: string) => ({ id: randomUUID(), exchangeId, userId, accessTokenSealed: "sealed", refreshTokenSealed: null, expiresAt: null, scope: null });

describe("exchange-accounts repository", () => {
  it("finds exchanges and links only within their environment, and links only the environment's users to its exchanges", async () => {
    const ex = await exchangeOf(a.environmentId);
    const user = await insertUser(db, a.environmentId, { email: `${randomUUID()}@example.com` });
    expect(await links.findExchangeByKind(db, b.environmentId, "generic")).toBeNull();
    expect(await links.findOnrampExchange(db, b.environmentId)).toBeNull();
    expect((await links.findOnrampExchange(db, a.environmentId))?.id).toBe(ex.id);
    // B cannot write a link onto A's exchange or user.
    expect(await links.upsertLink(db, b.environmentId, link(ex.id, user.id))).toBeNull();
    const bUser = await insertUser(db, b.environmentId, { email: `${randomUUID()}@example.com` });
    expect(await links.upsertLink(db, a.environmentId, link(ex.id, bUser.id))).toBeNull();
    expect(await links.upsertLink(db, a.environmentId, link(ex.id, user.id))).not.toBeNull();
    expect(await links.findLink(db, b.environmentId, ex.id, user.id)).toBeNull();
    expect((await links.findLink(db, a.environmentId, ex.id, user.id))?.accessTokenSealed).toBe("sealed");
  });
});
