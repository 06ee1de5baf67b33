import { randomUUID } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { WorkflowNotFoundError } from "@temporalio/client";
import { recoverMessageAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { workflowIds } from "../../src/temporal/ids.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { sdkFor } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";
import { TestDevice, type RoomView } from "../support/waas-device.js";

/**
 * Signatures and new wallets on the request path, through the published client and the room relay: no
 * wallet actor runs for them; a retried createWaasAccount makes one wallet; signatures racing a refresh or a
 * reshare of their wallet are each made with the set current at their commit (verified with viem) or refused
 * 409 room_stale, and every signature made has exactly one audit row and one event.
 */

let app: TestApp;
let t: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: `waas-signing-${randomUUID()}@example.com` });
}, 60_000);
afterAll(async () => {
  await app?.stop();
});

async function endUser() {
  const s = await signInAs(app, t.environmentId);
  const sdk = sdkFor(app.baseUrl, s.jwt);
  const relay = {
    async room(roomId: string): Promise<RoomView> {
      const r = await call(app.baseUrl, "GET", `/sdk/${t.environmentId}/waas/rooms/${roomId}`, { token: s.jwt });
      expect(r.status, r.text).toBe(200);
      return r.body as RoomView;
    },
    contribute: (roomId: string, contribution: Record<string, unknown>) =>
      call(app.baseUrl, "POST", `/sdk/${t.environmentId}/waas/rooms/${roomId}/contribution`, { token: s.jwt, body: { contribution } }),
  };
  return { ...s, sdk, relay };
}
type EndUser = Awaited<ReturnType<typeof endUser>>;

async function createWallet(u: EndUser, chain: "EVM" | "SVM" = "EVM") {
  const device = new TestDevice("1234", 1 << 10);
  const opened = await u.sdk.createWaasAccount({ environmentId: t.environmentId, createWaasAccountRequest: { chain: chain as never, clientKeygenIds: device.keygenIds(1) } });
  const room = await u.relay.room(opened.roomId);
  expect(room.status).toBe("done");
  await device.receive(room.result!.shareSet);
  return { walletId: opened.walletId!, address: room.result!.address as string, device };
}
type Wallet = Awaited<ReturnType<typeof createWallet>>;

/** A signing room opened now, with the device's part ready to post (EVM: its shares; Solana: its FROST rounds). */
async function prepared(u: EndUser, w: Wallet, message: string, chain: "EVM" | "SVM" = "EVM") {
  const opened = await u.sdk.signMessage({ environmentId: t.environmentId, walletId: w.walletId, signMessageWithWaasRequest: { message } });
  const room = await u.relay.room(opened.roomId);
  return { roomId: opened.roomId, message, part: chain === "EVM" ? await w.device.sharesContribution(room) : w.device.frostContribution(room) };
}

const count = async (sql: string, args: unknown[]) => (await app.db.one<{ n: number }>(sql, args)).n;
const signedAudits = (walletId: string) => count("SELECT count(*)::int AS n FROM audit_log WHERE resource_id = $1 AND action = 'waas_wallet.message_signed'", [walletId]);
const signedEvents = (walletId: string) => count("SELECT count(*)::int AS n FROM events WHERE resource_id = $1 AND event_name = 'waas_wallet.message_signed'", [walletId]);

async function noActor(walletId: string) {
  const err = await app.temporal.workflow.getHandle(workflowIds.waasWallet(walletId)).describe().then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowNotFoundError);
}

describe("on the request path", () => {
  it("creates and signs (EVM and Solana) without the wallet's actor", async () => {
    const u = await endUser();
    const evm = await createWallet(u);
    const p = await prepared(u, evm, "no actor");
    const done = await u.relay.contribute(p.roomId, p.part);
    expect(done.status, done.text).toBe(200);
    expect(await recoverMessageAddress({ message: "no actor", signature: done.body.result.signature })).toBe(evm.address);
    const sol = await createWallet(u, "SVM");
    const q = await prepared(u, sol, "no actor either", "SVM");
    const solDone = await u.relay.contribute(q.roomId, q.part);
    expect(solDone.status, solDone.text).toBe(200);
    expect(ed25519.verify(base58.decode(solDone.body.result.signature), new TextEncoder().encode("no actor either"), base58.decode(sol.address))).toBe(true);
    await noActor(evm.walletId);
    await noActor(sol.walletId);
  });

  it("makes one wallet of a retried createWaasAccount (the same device keygen ids), in turn or at once", async () => {
    const u = await endUser();
    const device = new TestDevice("1234", 1 << 10);
    const request = { chain: "EVM" as never, clientKeygenIds: device.keygenIds(1) };
    const first = await u.sdk.createWaasAccount({ environmentId: t.environmentId, createWaasAccountRequest: request });
    const again = await u.sdk.createWaasAccount({ environmentId: t.environmentId, createWaasAccountRequest: request });
    expect(again).toEqual(first);
    const other = { chain: "EVM" as never, clientKeygenIds: device.keygenIds(1) };
    const together = await Promise.all([0, 1, 2].map(() => u.sdk.createWaasAccount({ environmentId: t.environmentId, createWaasAccountRequest: other })));
    expect(new Set(together.map((r) => r.walletId)).size).toBe(1);
    expect(together[0]!.walletId).not.toBe(first.walletId);
    expect(await count("SELECT count(*)::int AS n FROM waas_wallets WHERE user_id = $1", [u.userId])).toBe(2);
    expect(await count("SELECT count(*)::int AS n FROM wallets WHERE user_id = $1", [u.userId])).toBe(2);
    expect(await count("SELECT count(*)::int AS n FROM audit_log WHERE actor_user_id = $1 AND action = 'waas_wallet.created'", [u.userId])).toBe(2);
    // The same keygen ids for another chain made no wallet: they belong to the first.
    const reused = await call(app.baseUrl, "POST", `/sdk/${t.environmentId}/waas/create`, { token: u.jwt, body: { chain: "SVM", clientKeygenIds: request.clientKeygenIds } });
    expect(reused.status, reused.text).toBe(409);
    expect(reused.body.code).toBe("keygen_ids_used");
  });

  it("signs many messages of one wallet at once (EVM and Solana), each audited once", async () => {
    const u = await endUser();
    for (const chain of ["EVM", "SVM"] as const) {
      const w = await createWallet(u, chain);
      const rooms = await Promise.all(Array.from({ length: 12 }, (_, i) => prepared(u, w, `together ${i}`, chain)));
      const answers = await Promise.all(rooms.map((p) => u.relay.contribute(p.roomId, p.part)));
      expect(answers.map((a) => a.status)).toEqual(rooms.map(() => 200));
      for (const [i, a] of answers.entries()) {
        const message = rooms[i]!.message;
        if (chain === "EVM") expect(await recoverMessageAddress({ message, signature: a.body.result.signature })).toBe(w.address);
        else expect(ed25519.verify(base58.decode(a.body.result.signature), new TextEncoder().encode(message), base58.decode(w.address))).toBe(true);
      }
      expect(await signedAudits(w.walletId)).toBe(12);
      expect(await signedEvents(w.walletId)).toBe(12);
    }
  });
});

describe("signatures racing a promotion", () => {
  /**
   * `n` signing rooms opened against the current set, then their parts posted all at once together with the
   * operation's own part: every answer is a signature of the wallet (old set, committed before the
   * promotion) or 409 room_stale, never anything else; one audit row and one event per signature.
   */
  async function race(operation: "refresh" | "reshare", n = 16) {
    const u = await endUser();
    const w = await createWallet(u);
    const rooms = await Promise.all(Array.from({ length: n }, (_, i) => prepared(u, w, `${operation} race ${i}`)));
    const next = new TestDevice("1234", 1 << 10);
    const opened =
      operation === "refresh"
        ? await u.sdk.refreshKeyShares({ environmentId: t.environmentId, walletId: w.walletId })
        : await u.sdk.reshare({
            environmentId: t.environmentId,
            walletId: w.walletId,
            reshareRequest: { clientKeygenIds: next.keygenIds(2), oldThresholdSignatureScheme: "TWO_OF_TWO" as never, newThresholdSignatureScheme: "TWO_OF_THREE" as never },
          });
    const opPart = await w.device.sharesContribution(await u.relay.room(opened.roomId));
    // Half the signatures go before the operation's part, half after: some land on each side of the promotion.
    const early = rooms.slice(0, n / 2).map((p) => u.relay.contribute(p.roomId, p.part));
    const op = u.relay.contribute(opened.roomId, opPart);
    const late = rooms.slice(n / 2).map((p) => u.relay.contribute(p.roomId, p.part));
    const answers = await Promise.all([...early, ...late]);
    const opDone = await op;
    expect(opDone.status, opDone.text).toBe(200);
    const signed = answers.filter((a) => a.status === 200);
    expect(answers.filter((a) => a.status !== 200).map((a) => [a.status, a.body.code])).toEqual(answers.filter((a) => a.status !== 200).map(() => [409, "room_stale"]));
    for (const [i, a] of answers.entries()) {
      if (a.status === 200) expect(await recoverMessageAddress({ message: rooms[i]!.message, signature: a.body.result.signature })).toBe(w.address);
      else expect((await u.relay.room(rooms[i]!.roomId)).status).toBe("failed");
    }
    expect(await signedAudits(w.walletId)).toBe(signed.length);
    expect(await signedEvents(w.walletId)).toBe(signed.length);
    // Room by room: each signature answered has its one audit row; a refused room has none.
    const audited = await app.db.map(
      "SELECT changes -> 'after' ->> 'roomId' AS room FROM audit_log WHERE resource_id = $1 AND action = 'waas_wallet.message_signed'",
      [w.walletId],
      (r) => r.room as string,
    );
    expect(audited.sort()).toEqual(rooms.filter((_, i) => answers[i]!.status === 200).map((p) => p.roomId).sort());
    // The new shares sign.
    const device = operation === "refresh" ? w.device : next;
    await device.receive(opDone.body.result.shareSet);
    const after = await prepared(u, { ...w, device }, `after ${operation}`);
    const done = await u.relay.contribute(after.roomId, after.part);
    expect(await recoverMessageAddress({ message: `after ${operation}`, signature: done.body.result.signature })).toBe(w.address);
    return { signed: signed.length, stale: n - signed.length };
  }

  it("refresh: each signature is of the wallet or 409 room_stale, audited once", async () => {
    // The first half is posted before the refresh's part, which then waits for the actor: some sign first.
    expect((await race("refresh")).signed).toBeGreaterThan(0);
  });

  it("reshare: each signature is of the wallet or 409 room_stale, audited once", async () => {
    // The first half is posted before the reshare's part, which then waits for the actor: some sign first.
    expect((await race("reshare")).signed).toBeGreaterThan(0);
  });
});
