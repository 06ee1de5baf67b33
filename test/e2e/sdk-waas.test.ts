import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { hashMessage, parseTransaction, recoverMessageAddress, recoverTransactionAddress, verifyTypedData } from "viem";
import { recoverAuthorizationAddress } from "viem/utils";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Configuration, WaasApi, WaasChainEnum, WaasPolicyRuleType } from "@dynamic-labs/sdk-api";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkWaasService } from "../../src/gen/sigil/waas/v0/sdk_waas_service_pb.js";
import { WaasService } from "../../src/gen/sigil/waas/v0/waas_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";
import { TestDevice, WrongPasscode, type RoomView } from "../support/waas-device.js";

/**
 * Threshold WaaS wallets through the published client (SDKApi, unchanged) and Sigil's room relay: create,
 * import, sign (EVM ECDSA, Solana FROST), refresh, reshare and export, each verified with viem / noble, and
 * the attacks: another user's wallet and room, a second contribution, two at once, a wrong passcode, a
 * stale room, an export id used twice, another environment's token.
 */

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: `waas-sdk-${randomUUID()}@example.com` });
  other = await app.bootstrap({ ownerEmail: `waas-sdk-other-${randomUUID()}@example.com` });
}, 60_000);
afterAll(async () => {
  await app?.stop();
});

/** A signed-in user with the published client and the relay calls a device makes. */
async function endUser(environmentId = t.environmentId) {
  const s = await signInAs(app, environmentId);
  const sdk = sdkFor(app.baseUrl, s.jwt);
  const relay = {
    async room(roomId: string): Promise<RoomView> {
      const r = await call(app.baseUrl, "GET", `/sdk/${environmentId}/waas/rooms/${roomId}`, { token: s.jwt });
      expect(r.status, r.text).toBe(200);
      return r.body as RoomView;
    },
    async contribute(roomId: string, contribution: Record<string, unknown>) {
      return call(app.baseUrl, "POST", `/sdk/${environmentId}/waas/rooms/${roomId}/contribution`, { token: s.jwt, body: { contribution } });
    },
  };
  return { ...s, sdk, relay, environmentId };
}
type EndUser = Awaited<ReturnType<typeof endUser>>;

async function createWallet(u: EndUser, chain: "EVM" | "SVM" = "EVM", scheme: "TWO_OF_TWO" | "TWO_OF_THREE" = "TWO_OF_TWO", passcode = "1234") {
  const device = new TestDevice(passcode);
  const opened = await u.sdk.createWaasAccount({
    environmentId: u.environmentId,
    createWaasAccountRequest: { chain: chain as never, clientKeygenIds: device.keygenIds(scheme === "TWO_OF_TWO" ? 1 : 2), thresholdSignatureScheme: scheme as never },
  });
  expect(opened.serverKeygenIds).toHaveLength(1);
  const room = await u.relay.room(opened.roomId);
  expect(room.status).toBe("done");
  await device.receive(room.result!.shareSet);
  return { walletId: opened.walletId!, address: room.result!.address as string, publicKey: room.result!.publicKey as string, device };
}

/** signMessage, then the device's part into the room; the finished room. */
async function sign(u: EndUser, w: { walletId: string; device: TestDevice }, message: string, chain: "EVM" | "SVM" = "EVM") {
  const opened = await u.sdk.signMessage({ environmentId: u.environmentId, walletId: w.walletId, signMessageWithWaasRequest: { message } });
  const room = await u.relay.room(opened.roomId);
  const part = chain === "EVM" ? await w.device.sharesContribution(room) : w.device.frostContribution(room);
  const done = await u.relay.contribute(opened.roomId, part);
  expect(done.status, done.text).toBe(200);
  return done.body as RoomView;
}

describe("create and sign", () => {
  it("creates an EVM wallet (2-of-2) whose address signs EIP-191 messages, and lists it as the user's credential", async () => {
    const u = await endUser();
    const w = await createWallet(u);
    expect(w.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const done = await sign(u, w, "hello sigil");
    expect(done.status).toBe("done");
    expect(await recoverMessageAddress({ message: "hello sigil", signature: done.result!.signature })).toBe(w.address);
    const user = await u.sdk.getAuthenticatedUser({ environmentId: u.environmentId });
    expect(user.verifiedCredentials?.some((c: { address?: string }) => c.address === w.address)).toBe(true);
  });

  it("creates a Solana wallet whose FROST signature (the key never rebuilt) verifies as plain Ed25519", async () => {
    const u = await endUser();
    const w = await createWallet(u, "SVM");
    expect(base58.decode(w.address)).toHaveLength(32);
    const done = await sign(u, w, "solana says hi", "SVM");
    const signature = base58.decode(done.result!.signature);
    expect(ed25519.verify(signature, new TextEncoder().encode("solana says hi"), base58.decode(w.address))).toBe(true);
  });

  it("signs with a 2-of-3 wallet using one of the device's two shares", async () => {
    const u = await endUser();
    const w = await createWallet(u, "EVM", "TWO_OF_THREE");
    const opened = await u.sdk.signMessage({ environmentId: u.environmentId, walletId: w.walletId, signMessageWithWaasRequest: { message: "one share" } });
    const room = await u.relay.room(opened.roomId);
    const done = await u.relay.contribute(opened.roomId, await w.device.sharesContribution(room, [3]));
    expect(done.status, done.text).toBe(200);
    expect(await recoverMessageAddress({ message: "one share", signature: done.body.result.signature })).toBe(w.address);
  });

  it("imports an EVM private key: same address, and it signs", async () => {
    const u = await endUser();
    const key = generatePrivateKey();
    const account = privateKeyToAccount(key);
    const device = new TestDevice("1234");
    const opened = await u.sdk.importPrivateKey({
      environmentId: u.environmentId,
      importWaasPrivateKeyRequest: { chain: "EVM" as never, clientKeygenIds: device.keygenIds(1), thresholdSignatureScheme: "TWO_OF_TWO" as never },
    });
    const room = await u.relay.room(opened.roomId);
    expect(room.status).toBe("open");
    const done = await u.relay.contribute(opened.roomId, await TestDevice.importContribution(room, key));
    expect(done.status, done.text).toBe(200);
    expect(done.body.result.address).toBe(account.address);
    await device.receive(done.body.result.shareSet);
    const signed = await sign(u, { walletId: opened.walletId!, device }, "imported");
    expect(signed.result!.signature).toBe(await account.signMessage({ message: "imported" }));
  });
});

/** A legacy Solana transfer from `from` to `to`, in wire form (base64), encoded by hand from the wire format. */
function solanaTransfer(from: string, to: string, lamports: bigint): { wire: string; message: Uint8Array } {
  const data = Buffer.alloc(12);
  data.writeUInt32LE(2, 0);
  data.writeBigUInt64LE(lamports, 4);
  const message = Buffer.concat([
    Buffer.from([1, 0, 1]), // header: 1 signer, 0 readonly signed, 1 readonly unsigned (the system program)
    Buffer.from([3]),
    Buffer.from(base58.decode(from)),
    Buffer.from(base58.decode(to)),
    Buffer.alloc(32), // the system program, 111...1
    Buffer.alloc(32, 7), // recent blockhash
    Buffer.from([1, 2, 2, 0, 1, 12]),
    data,
  ]);
  return { wire: Buffer.concat([Buffer.from([1]), Buffer.alloc(64), message]).toString("base64"), message };
}

describe("what is signed, and the WaaS policy", () => {
  it("signs EIP-712 typed data, an EIP-1559 transaction (chain id bound, answered signed) and an EIP-7702 authorization", async () => {
    const u = await endUser();
    const w = await createWallet(u);
    const typedData = {
      domain: { name: "Sigil", version: "1", chainId: 1, verifyingContract: "0x0000000000000000000000000000000000000001" },
      types: { Mail: [{ name: "contents", type: "string" }] },
      primaryType: "Mail",
      message: { contents: "hi" },
    };
    const signWith = async (context: Record<string, unknown>) => {
      const opened = await u.sdk.signMessage({ environmentId: u.environmentId, walletId: w.walletId, signMessageWithWaasRequest: { message: "", context: context as never } });
      const room = await u.relay.room(opened.roomId);
      const done = await u.relay.contribute(opened.roomId, await w.device.sharesContribution(room));
      expect(done.status, done.text).toBe(200);
      return done.body.result;
    };
    const typed = await signWith({ evmTypedData: typedData });
    expect(await verifyTypedData({ ...(typedData as unknown as Parameters<typeof verifyTypedData>[0]), address: w.address as `0x${string}`, signature: typed.signature })).toBe(true);
    const tx = await signWith({ evmTransaction: { to: "0x000000000000000000000000000000000000dEaD", chainId: 8453, value: "1000", nonce: 3, gas: "21000", maxFeePerGas: "2000000000", maxPriorityFeePerGas: "1000000" } });
    const parsed = parseTransaction(tx.signedTransaction);
    expect(parsed.chainId).toBe(8453);
    expect(await recoverTransactionAddress({ serializedTransaction: tx.signedTransaction })).toBe(w.address);
    const auth = await signWith({ eip7702Auth: { address: "0x000000000000000000000000000000000000bEEF", chainId: 1, nonce: 0 } });
    expect(await recoverAuthorizationAddress({ authorization: { address: "0x000000000000000000000000000000000000bEEF", chainId: 1, nonce: 0 }, signature: auth.signature })).toBe(w.address);
    const bad = await refused(u.sdk.signMessage({ environmentId: u.environmentId, walletId: w.walletId, signMessageWithWaasRequest: { message: "", context: { evmTransaction: { to: "0x1", chainId: 0 } } as never } }));
    expect(bad.status).toBe(422);
  });

  it("signs a Solana transfer transaction with FROST and answers it signed", async () => {
    const u = await endUser();
    const w = await createWallet(u, "SVM");
    const to = base58.encode(ed25519.getPublicKey(ed25519.utils.randomSecretKey()));
    const { wire, message } = solanaTransfer(w.address, to, 5000n);
    const opened = await u.sdk.signMessage({
      environmentId: u.environmentId,
      walletId: w.walletId,
      signMessageWithWaasRequest: { message: "", context: { svmTransaction: { chainId: "devnet", method: "signTransaction", serializedTransactions: [wire] } } as never },
    });
    const room = await u.relay.room(opened.roomId);
    expect(room.request.message).toBe(Buffer.from(message).toString("hex"));
    const done = await u.relay.contribute(opened.roomId, w.device.frostContribution(room));
    expect(done.status, done.text).toBe(200);
    const signature = base58.decode(done.body.result.signature);
    expect(ed25519.verify(signature, message, base58.decode(w.address))).toBe(true);
    // The signed wire transaction carries the signature in the wallet's slot.
    expect(Buffer.from(done.body.result.signedTransaction, "base64").subarray(1, 65).equals(Buffer.from(signature))).toBe(true);
  });

  it("enforces the environment's WaaS policy before anything is signed: 403 with the rule", async () => {
    const u = await endUser();
    const w = await createWallet(u);
    const sol = await createWallet(u, "SVM");
    const rules = await call(app.baseUrl, "POST", `/environments/${u.environmentId}/waas/policies`, {
      token: t.token,
      body: {
        rulesToAdd: [
          { name: "small payments to the treasury", ruleType: "allow", chain: "EVM", addresses: ["0x000000000000000000000000000000000000dEaD"], valueLimit: { maxPerCall: "0.5" }, methods: ["signTransaction"] },
          { name: "messages", ruleType: "allow", chain: "EVM", methods: ["signMessage", "signTypedData"] },
          { name: "no solana transfers", ruleType: "deny", chain: "SVM", methods: ["signTransaction"] },
        ],
      },
    });
    expect(rules.status, rules.text).toBeLessThan(300);
    const tx = (to: string, value: string) =>
      u.sdk.signMessage({ environmentId: u.environmentId, walletId: w.walletId, signMessageWithWaasRequest: { message: "", context: { evmTransaction: { to, chainId: 1, value } } as never } });
    const tooMuch = await refused(tx("0x000000000000000000000000000000000000dEaD", "600000000000000000"));
    expect(tooMuch.status).toBe(403);
    expect(tooMuch.body.code).toBe("policy_denied");
    const elsewhere = await refused(tx("0x000000000000000000000000000000000000bEEF", "1"));
    expect(elsewhere.status).toBe(403);
    expect((await tx("0x000000000000000000000000000000000000dEaD", "400000000000000000")).roomId).toBeTruthy();
    expect((await u.sdk.signMessage({ environmentId: u.environmentId, walletId: w.walletId, signMessageWithWaasRequest: { message: "still fine" } })).roomId).toBeTruthy();
    const to = base58.encode(ed25519.getPublicKey(ed25519.utils.randomSecretKey()));
    const denied = await refused(
      u.sdk.signMessage({
        environmentId: u.environmentId,
        walletId: sol.walletId,
        signMessageWithWaasRequest: { message: "", context: { svmTransaction: { chainId: "devnet", method: "signTransaction", serializedTransactions: [solanaTransfer(sol.address, to, 1n).wire] } } as never },
      }),
    );
    expect(denied.status).toBe(403);
    expect(denied.body.payload.rule).toBe("no solana transfers");
    // Another environment's wallets are not held to this policy.
    const elsewhereUser = await endUser(other.environmentId);
    const free = await createWallet(elsewhereUser);
    const opened = await elsewhereUser.sdk.signMessage({
      environmentId: other.environmentId,
      walletId: free.walletId,
      signMessageWithWaasRequest: { message: "", context: { evmTransaction: { to: "0x000000000000000000000000000000000000bEEF", chainId: 1, value: "1" } } as never },
    });
    expect(opened.roomId).toBeTruthy();
  });
});

describe("a rule's chainIds", () => {
  it("limit its rule to the chains a request is bound to, through the published client (REST) and over gRPC", async () => {
    const p = await app.bootstrap({ ownerEmail: `waas-chains-${randomUUID()}@example.com` });
    const u = await endUser(p.environmentId);
    const w = await createWallet(u);
    const sol = await createWallet(u, "SVM");
    const management = new WaasApi(new Configuration({ basePath: `${app.baseUrl}/api/v0`, accessToken: p.token, headers: { Authorization: `Bearer ${p.token}` } }));
    const created = await management.createWaasPolicy({
      environmentId: p.environmentId,
      waasPolicyCreateRequest: {
        rulesToAdd: [
          { name: "base and polygon", ruleType: WaasPolicyRuleType.Allow, chain: WaasChainEnum.Evm, chainIds: [8453, 137] },
          { name: "solana", ruleType: WaasPolicyRuleType.Allow, chain: WaasChainEnum.Svm },
          { name: "not on solana mainnet", ruleType: WaasPolicyRuleType.Deny, chain: WaasChainEnum.Svm, chainIds: [101] },
        ],
      },
    });
    expect(created.policyContent.map((r) => r.chainIds)).toEqual([[8453, 137], [], [101]]);
    const baseRule = created.policyContent[0]!.ruleId!;

    const signEvm = (context: Record<string, unknown>, message = "") =>
      u.sdk.signMessage({ environmentId: u.environmentId, walletId: w.walletId, signMessageWithWaasRequest: { message, context: context as never } });
    const tx = (chainId: number) => ({ evmTransaction: { to: "0x000000000000000000000000000000000000dEaD", chainId, value: "1" } });
    // A transaction names its chain (EIP-155): on a listed chain the allow rule clears it, elsewhere none does.
    expect((await signEvm(tx(8453))).roomId).toBeTruthy();
    expect((await signEvm(tx(137))).roomId).toBeTruthy();
    const mainnet = await refused(signEvm(tx(1)));
    expect(mainnet.status).toBe(403);
    expect(mainnet.body).toMatchObject({ code: "policy_denied", error: expect.any(String) });
    // Typed data is bound to its domain's chain; a message, and an EIP-7702 authorization for chain 0, are
    // valid on every chain, so an allow rule limited to some chains does not clear them.
    const typed = (chainId?: number) => ({
      evmTypedData: {
        domain: { name: "Sigil", version: "1", ...(chainId !== undefined ? { chainId } : {}) },
        types: { Mail: [{ name: "contents", type: "string" }] },
        primaryType: "Mail",
        message: { contents: "hi" },
      },
    });
    expect((await refused(signEvm(typed(1)))).status).toBe(403);
    expect((await refused(signEvm(typed()))).status).toBe(403);
    expect((await refused(signEvm({}, "hello"))).status).toBe(403);
    expect((await refused(signEvm({ eip7702Auth: { address: "0x000000000000000000000000000000000000bEEF", chainId: 0, nonce: 0 } }))).status).toBe(403);
    expect((await signEvm({ eip7702Auth: { address: "0x000000000000000000000000000000000000bEEF", chainId: 8453, nonce: 0 } })).roomId).toBeTruthy();

    // Solana: the request names its cluster (devnet, mainnet-beta, their network ids 101-103 or CAIP-2 ids).
    const to = base58.encode(ed25519.getPublicKey(ed25519.utils.randomSecretKey()));
    const signSol = (chainId: string) =>
      u.sdk.signMessage({
        environmentId: u.environmentId,
        walletId: sol.walletId,
        signMessageWithWaasRequest: { message: "", context: { svmTransaction: { chainId, method: "signTransaction", serializedTransactions: [solanaTransfer(sol.address, to, 1n).wire] } } as never },
      });
    expect((await signSol("devnet")).roomId).toBeTruthy();
    expect((await signSol("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1")).roomId).toBeTruthy();
    for (const cluster of ["mainnet-beta", "101", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"]) {
      const denied = await refused(signSol(cluster));
      expect(denied.status, cluster).toBe(403);
      expect(denied.body.payload.rule).toBe("not on solana mainnet");
    }
    // A Solana message is bound to no cluster: the deny rule for mainnet refuses it too.
    const solMessage = await refused(u.sdk.signMessage({ environmentId: u.environmentId, walletId: sol.walletId, signMessageWithWaasRequest: { message: "hi" } }));
    expect(solMessage.body.payload.rule).toBe("not on solana mainnet");

    // Updating the rule's chains (the client's updateWaasPolicy) changes what it clears.
    const updated = await management.updateWaasPolicy({
      environmentId: p.environmentId,
      waasPolicyUpdateRequest: { rulesToUpdate: [{ ruleId: baseRule, name: "base and mainnet", ruleType: WaasPolicyRuleType.Allow, chain: WaasChainEnum.Evm, chainIds: [8453, 1] }] },
    });
    expect(updated.policyContent[0]!.chainIds).toEqual([8453, 1]);
    expect((await signEvm(tx(1))).roomId).toBeTruthy();
    expect((await refused(signEvm(tx(137)))).status).toBe(403);

    // Over gRPC: the rule's chains are stored and answered, and a signature is judged by them.
    const headers = { authorization: `Bearer ${p.token}` };
    const policies = createClient(WaasService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const read = await policies.getWaasPolicy({ environmentId: p.environmentId }, { headers });
    expect(read.policy?.policyContent[0]?.chainIds.map(Number)).toEqual([8453, 1]);
    const grpc = createClient(SdkWaasService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const userHeaders = { authorization: `Bearer ${u.jwt}` };
    const sign = (chainId: number) => grpc.signMessage({ environmentId: u.environmentId, walletId: w.walletId, context: tx(chainId) }, { headers: userHeaders });
    expect((await sign(8453)).room?.roomId).toBeTruthy();
    await expect(sign(10)).rejects.toMatchObject({ code: 7 });
  });

  it("are checked: whole positive chain ids, and Solana's cluster ids on an SVM rule", async () => {
    const p = await app.bootstrap({ ownerEmail: `waas-chains-bad-${randomUUID()}@example.com` });
    const add = (rule: Record<string, unknown>) =>
      call(app.baseUrl, "POST", `/environments/${p.environmentId}/waas/policies`, { token: p.token, body: { rulesToAdd: [{ name: "r", ruleType: "allow", ...rule }] } });
    for (const rule of [
      { chain: "EVM", chainIds: [0] },
      { chain: "EVM", chainIds: [-1] },
      { chain: "EVM", chainIds: [1.5] },
      { chain: "SVM", chainIds: [1] },
      { chain: "EVM", chainId: 0 },
    ]) {
      const res = await add(rule);
      expect(res.status, JSON.stringify(rule)).toBe(400);
      expect(res.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
    expect((await app.db.oneOrNone("SELECT 1 FROM waas_policies WHERE environment_id = $1", [p.environmentId]))).toBeNull();
    // The client's earlier chainId joins chainIds.
    const legacy = await add({ chain: "EVM", chainId: 10, chainIds: [8453, 10] });
    expect(legacy.status, legacy.text).toBe(201);
    expect(legacy.body.policyContent[0].chainIds).toEqual([10, 8453]);
  });
});

describe("refresh, reshare, export", () => {
  it("refreshes: same address, new shares, the old device shares sign nothing", async () => {
    const u = await endUser();
    const w = await createWallet(u);
    const before = await u.relay.room((await u.sdk.signMessage({ environmentId: u.environmentId, walletId: w.walletId, signMessageWithWaasRequest: { message: "x" } })).roomId);
    const oldPart = await w.device.sharesContribution(before);
    const opened = await u.sdk.refreshKeyShares({ environmentId: u.environmentId, walletId: w.walletId });
    const room = await u.relay.room(opened.roomId);
    const done = await u.relay.contribute(opened.roomId, await w.device.sharesContribution(room));
    expect(done.status, done.text).toBe(200);
    expect(done.body.result.address).toBe(w.address);
    expect(done.body.result.shareSet.epoch).toBe(2);
    // A room opened before the refresh is stale; its old share is refused.
    const stale = await u.relay.contribute(before.roomId, oldPart);
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("room_stale");
    await w.device.receive(done.body.result.shareSet);
    const signed = await sign(u, w, "after refresh");
    expect(await recoverMessageAddress({ message: "after refresh", signature: signed.result!.signature })).toBe(w.address);
  });

  it("reshares 2-of-2 into 2-of-3 with the same address", async () => {
    const u = await endUser();
    const w = await createWallet(u);
    const next = new TestDevice("1234");
    const opened = await u.sdk.reshare({
      environmentId: u.environmentId,
      walletId: w.walletId,
      reshareRequest: { clientKeygenIds: next.keygenIds(2), oldThresholdSignatureScheme: "TWO_OF_TWO" as never, newThresholdSignatureScheme: "TWO_OF_THREE" as never },
    });
    expect(opened.newServerKeygenIds).toEqual(opened.serverKeygenIds);
    const room = await u.relay.room(opened.roomId);
    const done = await u.relay.contribute(opened.roomId, await w.device.sharesContribution(room));
    expect(done.status, done.text).toBe(200);
    expect(done.body.result.shareSet).toMatchObject({ threshold: 2, holders: 3 });
    expect(done.body.result.address).toBe(w.address);
    await next.receive(done.body.result.shareSet);
    const signed = await sign(u, { walletId: w.walletId, device: next }, "reshared");
    expect(await recoverMessageAddress({ message: "reshared", signature: signed.result!.signature })).toBe(w.address);
  });

  it("exports the key once per export id, encrypted to the device's one-time key; audited with wallet.exported", async () => {
    const u = await endUser();
    const w = await createWallet(u);
    const exportId = `exp-${randomUUID()}`;
    const opened = await u.sdk.exportPrivateKey({ environmentId: u.environmentId, walletId: w.walletId, exportWaasWalletPrivateKeyRequest: { exportId } });
    const room = await u.relay.room(opened.roomId);
    const oneTime = TestDevice.exportKey();
    const done = await u.relay.contribute(opened.roomId, { ...(await w.device.sharesContribution(room)), exportKey: oneTime.publicJwk });
    expect(done.status, done.text).toBe(200);
    const exported = await oneTime.open(done.body.result.encryptedKey);
    expect(privateKeyToAccount(`0x${exported.privateKey}`).address).toBe(w.address);
    const again = await refused(u.sdk.exportPrivateKey({ environmentId: u.environmentId, walletId: w.walletId, exportWaasWalletPrivateKeyRequest: { exportId } }));
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("export_exists");
    const events = await app.db.any("SELECT event_name FROM events WHERE environment_id = $1 AND resource_id = $2", [u.environmentId, w.walletId]);
    expect(events.map((e) => e.event_name)).toContain("wallet.exported");
  });
});

describe("attacks", () => {
  it("answers 404 for another user's wallet and room, and for another environment's token", async () => {
    const owner = await endUser();
    const w = await createWallet(owner);
    const thief = await endUser();
    for (const attempt of [
      () => thief.sdk.signMessage({ environmentId: t.environmentId, walletId: w.walletId, signMessageWithWaasRequest: { message: "mine now" } }),
      () => thief.sdk.refreshKeyShares({ environmentId: t.environmentId, walletId: w.walletId }),
      () => thief.sdk.exportPrivateKey({ environmentId: t.environmentId, walletId: w.walletId, exportWaasWalletPrivateKeyRequest: { exportId: "steal" } }),
    ]) {
      expect((await refused(attempt())).status).toBe(404);
    }
    const opened = await owner.sdk.signMessage({ environmentId: t.environmentId, walletId: w.walletId, signMessageWithWaasRequest: { message: "m" } });
    const peek = await call(app.baseUrl, "GET", `/sdk/${t.environmentId}/waas/rooms/${opened.roomId}`, { token: thief.jwt });
    expect(peek.status).toBe(404);
    const elsewhere = await endUser(other.environmentId);
    const cross = await call(app.baseUrl, "POST", `/sdk/${t.environmentId}/waas/${w.walletId}/refresh`, { token: elsewhere.jwt });
    expect(cross.status).toBe(401);
  });

  it("takes one contribution per room: a second is 409, and of two at once exactly one wins", async () => {
    const u = await endUser();
    const w = await createWallet(u);
    const opened = await u.sdk.signMessage({ environmentId: u.environmentId, walletId: w.walletId, signMessageWithWaasRequest: { message: "race" } });
    const room = await u.relay.room(opened.roomId);
    const part = await w.device.sharesContribution(room);
    const [a, b] = await Promise.all([u.relay.contribute(opened.roomId, part), u.relay.contribute(opened.roomId, part)]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect((await u.relay.contribute(opened.roomId, part)).status).toBe(409);
  });

  it("refuses a wrong passcode on the device, and shares that do not verify on the server", async () => {
    const u = await endUser();
    const w = await createWallet(u, "EVM", "TWO_OF_TWO", "right passcode");
    const opened = await u.sdk.signMessage({ environmentId: u.environmentId, walletId: w.walletId, signMessageWithWaasRequest: { message: "m" } });
    const room = await u.relay.room(opened.roomId);
    await expect(w.device.sharesContribution(room, [2], "wrong passcode")).rejects.toBeInstanceOf(WrongPasscode);
    // A share of another wallet, well encrypted to this room: the Feldman check refuses it.
    const stranger = await createWallet(u);
    const bad = await u.relay.contribute(opened.roomId, await stranger.device.sharesContribution(room));
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe("invalid_key_share");
    const failed = await u.relay.room(opened.roomId);
    expect(failed.status).toBe("failed");
    expect(failed.error?.code).toBe("invalid_key_share");
  });

  it("refuses bad input with 400 and changes nothing", async () => {
    const u = await endUser();
    const device = new TestDevice("1");
    const tooMany = await refused(
      u.sdk.createWaasAccount({ environmentId: u.environmentId, createWaasAccountRequest: { chain: "EVM" as never, clientKeygenIds: device.keygenIds(2), thresholdSignatureScheme: "TWO_OF_TWO" as never } }),
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.code).toBe("invalid_keygen_ids");
    const notKey = await refused(u.sdk.createWaasAccount({ environmentId: u.environmentId, createWaasAccountRequest: { chain: "EVM" as never, clientKeygenIds: ["bm90IGEga2V5"] } }));
    expect(notKey.status).toBe(400);
    expect(notKey.body.code).toBe("invalid_keygen_id");
    const btc = await refused(u.sdk.createWaasAccount({ environmentId: u.environmentId, createWaasAccountRequest: { chain: "BTC" as never, clientKeygenIds: device.keygenIds(1) } }));
    expect(btc.status).toBe(422);
    expect((await app.db.one("SELECT count(*)::int AS n FROM waas_wallets WHERE user_id = $1", [u.userId])).n).toBe(0);
  });
});

describe("rooms reserved ahead and gRPC", () => {
  it("signs in a room reserved with createRooms; another wallet cannot take it", async () => {
    const u = await endUser();
    const w = await createWallet(u);
    const other = await createWallet(u);
    const { roomIds } = await u.sdk.createRooms({ environmentId: u.environmentId, walletId: w.walletId, createRoomsRequest: { roomType: "threshold" as never, roomCount: 2 } });
    expect(roomIds).toHaveLength(2);
    const wrong = await refused(u.sdk.signMessage({ environmentId: u.environmentId, walletId: other.walletId, signMessageWithWaasRequest: { message: "m", roomId: roomIds[0] } }));
    expect(wrong.status).toBe(409);
    const opened = await u.sdk.signMessage({ environmentId: u.environmentId, walletId: w.walletId, signMessageWithWaasRequest: { message: "reserved", roomId: roomIds[0] } });
    expect(opened.roomId).toBe(roomIds[0]);
    const room = await u.relay.room(opened.roomId);
    expect(room.request.digest).toBe(hashMessage("reserved"));
    const done = await u.relay.contribute(opened.roomId, await w.device.sharesContribution(room));
    expect(await recoverMessageAddress({ message: "reserved", signature: done.body.result.signature })).toBe(w.address);
    const loose = await u.sdk.createRoomsWithoutWalletId({ environmentId: u.environmentId, createRoomsWithoutWalletIdRequest: { roomType: "threshold" as never, thresholdSignatureScheme: "TWO_OF_TWO" as never } });
    expect(loose.roomIds).toHaveLength(1);
  });

  it("creates a wallet and reads its room over gRPC", async () => {
    const u = await endUser();
    const grpc = createClient(SdkWaasService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const device = new TestDevice("1234");
    const headers = { authorization: `Bearer ${u.jwt}` };
    const created = await grpc.createWaasAccount({ environmentId: u.environmentId, chain: "EVM", clientKeygenIds: device.keygenIds(1) }, { headers });
    const room = await grpc.getWaasRoom({ environmentId: u.environmentId, roomId: created.room!.roomId }, { headers });
    expect(room.room!.status).toBe("done");
    expect(room.room!.result!.address).toMatch(/^0x/);
  });
});
