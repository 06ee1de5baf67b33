import { randomUUID } from "node:crypto";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { sdkFor } from "../support/sdk-client.js";
import { statementsOf as statementsIn } from "../support/statements.js";
import { TestDevice, type RoomView } from "../support/waas-device.js";
import { call } from "../support/http.js";
import { signInAs } from "../support/sessions.js";
import { evmProof, newEvmWallet } from "../support/wallet-proofs.js";

/**
 * What the hottest paths cost Postgres, counted in statements (BEGIN and COMMIT included), not in time: a
 * wallet sign-in, a refresh, and a threshold wallet's signature. A statement added to one of them costs every
 * user, every signature: a change that adds one must change the number here and say why.
 */

let app: TestApp;
let tenant: BootstrapResult;
beforeAll(async () => {
  // No outbox dispatcher: its polling would be counted with the sign-in.
  app = await startTestApp({}, { dispatcher: false });
  tenant = await app.bootstrap({ ownerEmail: `hot-path-statements-${randomUUID()}@example.com` });
}, 60_000);
afterAll(() => app?.stop());

const sdk = () => sdkFor(app.baseUrl);

const statementsOf = (work: () => Promise<unknown>) => statementsIn(app.db, work);

let lastJwt = "";
async function signIn(wallet: ReturnType<typeof newEvmWallet>) {
  const nonce = (await sdk().getNonce({ environmentId: tenant.environmentId })).nonce!;
  const verifyRequest = await evmProof(wallet, nonce);
  return statementsOf(async () => (lastJwt = (await sdk().verify({ environmentId: tenant.environmentId, verifyRequest })).jwt!));
}

describe("statements of a wallet sign-in", () => {
  it("runs a fixed number for a new wallet and for a returning one", async () => {
    // Warm the process caches (signing keys, session policy, environment) with another wallet first.
    await signIn(newEvmWallet());
    await signIn(newEvmWallet());
    const wallet = newEvmWallet();
    const created = await signIn(wallet);
    const returning = await signIn(wallet);
    // Reads first: the environment's rules with its origins, the credential's owner, the allowlists. Then a
    // new wallet's user and wallet in a transaction with one statement that writes the visit, the session and
    // every audit row and event and reads the user back; a returning wallet's sign-in is that statement
    // alone, with no transaction around it.
    expect(created, created.join("\n")).toHaveLength(8);
    expect(returning, returning.join("\n")).toHaveLength(4);
    expect(returning.at(-1)).toBe("prepared open-session-and-find-user");
  });

  it("refreshes in one statement, the rotation of the refresh generation with the read of the user, and no store read", async () => {
    await signIn(newEvmWallet());
    // The first call of a session asks Postgres whether it is live (the store learns it then): not a refresh's cost.
    await sdkFor(app.baseUrl, lastJwt).sessionCheck({ environmentId: tenant.environmentId });
    // Nor does it read the store's revocation marker first: the rotation only matches a live session.
    const reads: string[] = [];
    const get = app.store.get.bind(app.store);
    app.store.get = (key: string) => (reads.push(key), get(key));
    try {
      const refreshed = await statementsOf(() => sdkFor(app.baseUrl, lastJwt).refreshAuth({ environmentId: tenant.environmentId }));
      expect(refreshed, refreshed.join("\n")).toHaveLength(1);
    } finally {
      app.store.get = get;
    }
    expect(reads.filter((k) => k.startsWith("session:state:"))).toEqual([]);
  });
});

describe("statements of a threshold wallet's signature", () => {
  it("takes the device's part in five: BEGIN, the contribution, the set locked with its secrets, the outcome with its audit row and event, COMMIT", async () => {
    const u = await signInAs(app, tenant.environmentId);
    const sdk = sdkFor(app.baseUrl, u.jwt);
    const room = async (roomId: string) => (await call(app.baseUrl, "GET", `/sdk/${tenant.environmentId}/waas/rooms/${roomId}`, { token: u.jwt })).body as RoomView;
    for (const chain of ["EVM", "SVM"] as const) {
      const device = new TestDevice("1234", 1 << 10);
      const created = await sdk.createWaasAccount({ environmentId: tenant.environmentId, createWaasAccountRequest: { chain: chain as never, clientKeygenIds: device.keygenIds(1) } });
      await device.receive((await room(created.roomId)).result!.shareSet);
      const opened = await sdk.signMessage({ environmentId: tenant.environmentId, walletId: created.walletId!, signMessageWithWaasRequest: { message: `counted ${chain}` } });
      const signing = await room(opened.roomId);
      const contribution = chain === "EVM" ? await device.sharesContribution(signing) : device.frostContribution(signing);
      let status = 0;
      const statements = await statementsOf(async () => {
        status = (await call(app.baseUrl, "POST", `/sdk/${tenant.environmentId}/waas/rooms/${opened.roomId}/contribution`, { token: u.jwt, body: { contribution } })).status;
      });
      expect(status).toBe(200);
      expect(statements, statements.join("\n")).toEqual(["BEGIN", "prepared contribute-to-room", "prepared lock-set-for-signing", "prepared finish-room-recorded", "COMMIT"]);
      const recorded = await app.db.one(
        `SELECT (SELECT count(*)::int FROM audit_log WHERE resource_id = $1 AND action = 'waas_wallet.message_signed') AS audits,
           (SELECT count(*)::int FROM events WHERE resource_id = $1 AND event_name = 'waas_wallet.message_signed') AS events`,
        [created.walletId],
      );
      expect(recorded).toEqual({ audits: 1, events: 1 });
    }
  });
});

describe("a returning user's visit", () => {
  it("is recorded, and a sign-in of the same user a moment later does not wait on the user's row", async () => {
    const wallet = newEvmWallet();
    await signIn(wallet);
    const userId = decodeJwt(lastJwt).sub!;
    const visited = async () => (await app.db.one("SELECT last_visit FROM users WHERE environment_id = $1 AND id = $2", [tenant.environmentId, userId])).last_visit as Date | null;
    expect(await visited()).not.toBeNull();
    // Another transaction holds the user's row (as a concurrent sign-in writing its visit does until it commits).
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const lockTaken = new Promise<void>((r) => (locked = r));
    const holder = app.db.tx(async (t) => {
      await t.one("SELECT id FROM users WHERE environment_id = $1 AND id = $2 FOR NO KEY UPDATE", [tenant.environmentId, userId]);
      locked();
      await released;
    });
    await lockTaken;
    try {
      // Within 30 seconds: the visit is not written again, so the sign-in answers while the row is held.
      const outcome = await Promise.race([signIn(wallet).then(() => "signed in"), new Promise((r) => setTimeout(() => r("waited on the row"), 5_000))]);
      expect(outcome).toBe("signed in");
    } finally {
      release();
      await holder;
    }
  });
});
