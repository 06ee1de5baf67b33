import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDatabase, type Database } from "../../src/db/db.js";
import * as passkeys from "../../src/db/repositories/passkeys.js";
import * as users from "../../src/db/repositories/users.js";
import { bootstrapTenant, type BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { migratedDatabase } from "../support/app.js";

// Contract: every passkey repository function, given tenant B's environment, neither reads nor changes
// tenant A's rows; and a credential id is unique within an environment only.
let db: Database;
let a: BootstrapResult;
let b: BootstrapResult;

beforeAll(async () => {
  db = await migratedDatabase();
  a = await bootstrapTenant(db);
  b = await bootstrapTenant(db);
});
afterAll(() => closeDatabase(db));

const key = (credentialId: string): passkeys.NewPasskey => ({
  id: randomUUID(),
  mfaDeviceId: null,
  credentialId,
  publicKey: new Uint8Array([1, 2, 3]),
  signCount: 0,
  transports: ["internal"],
  aaguid: "00000000-0000-0000-0000-000000000000",
  attestationFormat: "none",
  deviceType: "singleDevice",
  backedUp: false,
  alias: null,
  origin: "https://app.example.com",
  userAgent: null,
});

describe("passkeys repository", () => {
  it("reads and changes passkeys only within their environment", async () => {
    const u = await users.insertUser(db, a.environmentId, {});
    const credentialId = `cred-${randomUUID()}`;
    const p = await passkeys.insertPasskey(db, a.environmentId, u.id, key(credentialId));
    expect(await passkeys.findPasskeyByCredentialId(db, b.environmentId, credentialId)).toBeNull();
    expect(await passkeys.listSignInPasskeys(db, b.environmentId, u.id)).toEqual([]);
    expect(await passkeys.listCredentialIds(db, b.environmentId, u.id)).toEqual([]);
    expect(await passkeys.findSignInPasskey(db, b.environmentId, u.id, p.id)).toBeNull();
    expect(await passkeys.renamePasskey(db, b.environmentId, u.id, p.id, "x")).toBeNull();
    expect(await passkeys.recordPasskeyUse(db, b.environmentId, p.id, { signCount: 5, backedUp: true })).toBe(false);
    expect(await passkeys.deleteSignInPasskey(db, b.environmentId, u.id, p.id)).toBeNull();
    const still = await passkeys.findPasskeyByCredentialId(db, a.environmentId, credentialId);
    expect(still).toMatchObject({ id: p.id, alias: null, signCount: 0, backedUp: false });
    expect(Buffer.from(still!.publicKey)).toEqual(Buffer.from([1, 2, 3]));
  });

  it("keeps a credential id unique per environment, and counters moving forward only", async () => {
    const ua = await users.insertUser(db, a.environmentId, {});
    const ub = await users.insertUser(db, b.environmentId, {});
    const credentialId = `cred-${randomUUID()}`;
    const p = await passkeys.insertPasskey(db, a.environmentId, ua.id, key(credentialId));
    await expect(passkeys.insertPasskey(db, a.environmentId, ua.id, key(credentialId))).rejects.toMatchObject({ code: "23505" });
    await passkeys.insertPasskey(db, b.environmentId, ub.id, key(credentialId));
    expect(await passkeys.recordPasskeyUse(db, a.environmentId, p.id, { signCount: 3, backedUp: false })).toBe(true);
    expect(await passkeys.recordPasskeyUse(db, a.environmentId, p.id, { signCount: 3, backedUp: false })).toBe(false);
    expect(await passkeys.recordPasskeyUse(db, a.environmentId, p.id, { signCount: 2, backedUp: false })).toBe(false);
  });
});
