import { randomUUID } from "node:crypto";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { Configuration, EmbeddedWalletChainEnum, EmbeddedWalletProviderEnum, SDKApi } from "@dynamic-labs/sdk-api";
import { base58, base64 } from "@scure/base";
import { decodeJwt } from "jose";
import { encodeFunctionData, erc20Abi, getAddress, parseTransaction } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findEnvironmentTenant } from "../../../src/db/repositories/tenant-access.js";
import { passSecondFactor } from "../../../src/domain/mfa/pass.js";
import type { BootstrapResult } from "../../../src/domain/tenancy/bootstrap.js";
import { SdkEmbeddedWalletsService } from "../../../src/gen/sigil/embedded_wallets/v0/sdk_embedded_wallets_service_pb.js";
import { SdkWaasBackupService } from "../../../src/gen/sigil/waas/v0/sdk_waas_backup_service_pb.js";
import { SdkWaasService } from "../../../src/gen/sigil/waas/v0/sdk_waas_service_pb.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { call } from "../../support/http.js";
import { refused, sdkFor } from "../../support/sdk-client.js";
import { signInAs } from "../../support/sessions.js";
import {
  createAccount,
  createAccountWithSeed,
  randomSolanaAddress,
  solanaTransaction,
  splTransfer,
  systemTransfer,
  transferWithSeed,
} from "../../support/solana-tx.js";
import { TestDevice, type RoomView } from "../../support/waas-device.js";

/**
 * Attacks on what a threshold wallet signs and on its recovery, replayed through the published client
 * (REST) and over gRPC: a transaction's message bytes sent as a "message"; lamport moves other than a
 * System Transfer, SPL transfers, ERC-20 calldata and Permit typed data under allow rules that name
 * addresses or a limit; an all-caps EVM recipient; the device's sealed share downloaded by a session alone.
 */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
}, 120_000);
afterAll(async () => {
  await app?.stop();
});

const LISTED_EVM = "0x000000000000000000000000000000000000dEaD";
const TOKEN = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";
const STRANGER_EVM = "0x000000000000000000000000000000000000bEEF";

async function tenantWithPolicy(rules: Record<string, unknown>[], mfa?: Record<string, unknown>): Promise<BootstrapResult> {
  const t = await app.bootstrap({ ownerEmail: `wallet-policy-${randomUUID()}@example.com` });
  if (rules.length) {
    const r = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/waas/policies`, { token: t.token, body: { rulesToAdd: rules } });
    expect(r.status, r.text).toBeLessThan(300);
  }
  if (mfa) {
    const r = await call(app.baseUrl, "PUT", `/environments/${t.environmentId}`, { token: t.token, body: { security: { mfa } } });
    expect(r.status, r.text).toBe(200);
  }
  return t;
}

async function userWithWallet(environmentId: string, chain: "EVM" | "SVM") {
  const s = await signInAs(app, environmentId);
  const sdk = sdkFor(app.baseUrl, s.jwt);
  const device = new TestDevice("1234-passcode");
  const opened = await sdk.createWaasAccount({
    environmentId,
    createWaasAccountRequest: { chain: chain as never, clientKeygenIds: device.keygenIds(1), thresholdSignatureScheme: "TWO_OF_TWO" as never },
  });
  const room = (await call(app.baseUrl, "GET", `/sdk/${environmentId}/waas/rooms/${opened.roomId}`, { token: s.jwt })).body as RoomView;
  expect(room.status, JSON.stringify(room)).toBe("done");
  await device.receive(room.result!.shareSet);
  const grpc = createClient(SdkWaasService, createGrpcTransport({ baseUrl: app.baseUrl }));
  const headers = { authorization: `Bearer ${s.jwt}` };
  return { ...s, environmentId, sdk, device, walletId: opened.walletId!, address: room.result!.address as string, grpc, headers };
}
type User = Awaited<ReturnType<typeof userWithWallet>>;

/** signMessage through the published client (REST): the opened room's id, or the refusal. */
const restSign = (u: User, request: { message: string; isFormatted?: boolean; context?: Record<string, unknown> }) =>
  u.sdk.signMessage({ environmentId: u.environmentId, walletId: u.walletId, signMessageWithWaasRequest: request as never });

/** The same request over gRPC: its Connect code and error code, or "ok". */
async function grpcSign(u: User, request: { message: string; isFormatted?: boolean; context?: Record<string, unknown> }) {
  try {
    await u.grpc.signMessage({ environmentId: u.environmentId, walletId: u.walletId, message: request.message, isFormatted: request.isFormatted ?? false, ...(request.context ? { context: request.context as never } : {}) }, { headers: u.headers });
    return "ok";
  } catch (e) {
    const err = ConnectError.from(e);
    return { code: err.code, message: err.rawMessage };
  }
}

/** Refused on both transports with `status` / `connectCode` and the error code `code`. */
async function refusedEverywhere(u: User, request: Parameters<typeof restSign>[1], status: number, code: string, connectCode: Code) {
  const rest = await refused(restSign(u, request));
  expect(rest.status, JSON.stringify(rest.body)).toBe(status);
  expect(rest.body.code).toBe(code);
  const grpc = await grpcSign(u, request);
  expect(grpc).toMatchObject({ code: connectCode });
  return rest.body;
}

async function allowedEverywhere(u: User, request: Parameters<typeof restSign>[1]) {
  expect((await restSign(u, request)).roomId).toBeTruthy();
  expect(await grpcSign(u, request)).toBe("ok");
}

const svmTx = (wire: string) => ({ message: "", context: { svmTransaction: { chainId: "devnet", method: "signTransaction", serializedTransactions: [wire] } } });
const evmTx = (to: string, value: string, data?: string) => ({ message: "", context: { evmTransaction: { to, chainId: 1, value, ...(data ? { data } : {}) } } });

describe("a Solana transaction's message bytes sent as a message", () => {
  it("is refused (422 message_is_transaction) however it is encoded, while the policy denies signTransaction; real messages still sign", async () => {
    const t = await tenantWithPolicy([
      { name: "no solana transactions", ruleType: "deny", chain: "SVM", methods: ["signTransaction"] },
      { name: "solana messages", ruleType: "allow", chain: "SVM", methods: ["signMessage"] },
    ]);
    const u = await userWithWallet(t.environmentId, "SVM");
    const to = randomSolanaAddress();
    for (const version of ["legacy", 0] as const) {
      const { message, wire } = solanaTransaction(u.address, [systemTransfer(u.address, to, 1_000_000_000n)], version);
      // The transaction itself is denied by the policy.
      await refusedEverywhere(u, svmTx(wire), 403, "policy_denied", Code.PermissionDenied);
      for (const request of [
        { message: base64.encode(message), isFormatted: true },
        { message: base58.encode(message), isFormatted: true },
        { message: `0x${Buffer.from(message).toString("hex")}`, isFormatted: true },
        { message: "", isFormatted: true, context: { svmMessage: base58.encode(message) } },
        // With trailing bytes too: the chain reads the message from its start.
        { message: base64.encode(Uint8Array.from([...message, 1, 2, 3])), isFormatted: true },
      ]) {
        await refusedEverywhere(u, request, 422, "message_is_transaction", Code.FailedPrecondition);
      }
    }
    // Nothing was opened for the refused requests.
    expect((await app.db.one("SELECT count(*)::int AS n FROM waas_rooms WHERE wallet_id = $1 AND operation = 'sign'", [u.walletId])).n).toBe(0);
    // Text, binary and Solana off-chain messages (0xff "solana offchain" ...) still sign.
    await allowedEverywhere(u, { message: "hello solana" });
    await allowedEverywhere(u, { message: "0x0102030405", isFormatted: true });
    const offchain = Uint8Array.from([0xff, ...Buffer.from("solana offchain"), 0, ...Buffer.from("hello")]);
    await allowedEverywhere(u, { message: base64.encode(offchain), isFormatted: true });
  });
});

describe("lamport moves other than System Transfer", () => {
  const rules = (listed: string) => [{ name: "small payments to the treasury", ruleType: "allow", chain: "SVM", addresses: [listed], valueLimit: { maxPerCall: "0.5" }, methods: ["signTransaction"] }];

  it("CreateAccount, CreateAccountWithSeed and TransferWithSeed are held to the recipient list and maxPerCall", async () => {
    const listed = randomSolanaAddress();
    const t = await tenantWithPolicy(rules(listed));
    const u = await userWithWallet(t.environmentId, "SVM");
    const stranger = randomSolanaAddress();
    const tx = (...ixs: Parameters<typeof solanaTransaction>[1]) => svmTx(solanaTransaction(u.address, ixs).wire);
    // Within the rule: a System Transfer to the listed address.
    await allowedEverywhere(u, tx(systemTransfer(u.address, listed, 100_000_000n)));
    for (const move of [
      createAccount(u.address, stranger, 100_000_000n),
      createAccount(u.address, listed, 600_000_000n),
      createAccountWithSeed(u.address, stranger, "seed", 100_000_000n),
      createAccountWithSeed(u.address, listed, "seed", 600_000_000n),
      transferWithSeed(randomSolanaAddress(), u.address, stranger, "seed", 100_000_000n),
      transferWithSeed(randomSolanaAddress(), u.address, listed, "seed", 600_000_000n),
    ]) {
      await refusedEverywhere(u, tx(move), 403, "policy_denied", Code.PermissionDenied);
    }
    // Each within the rule on its own, two transfers together exceed maxPerCall: the call is judged whole.
    await refusedEverywhere(u, tx(systemTransfer(u.address, listed, 300_000_000n), systemTransfer(u.address, listed, 300_000_000n)), 403, "policy_denied", Code.PermissionDenied);
    await allowedEverywhere(u, tx(createAccount(u.address, listed, 100_000_000n)));
  });

  it("an SPL token transfer matches no allow rule that names addresses or a limit, only an unconditional one", async () => {
    const listed = randomSolanaAddress();
    const t = await tenantWithPolicy(rules(listed));
    const u = await userWithWallet(t.environmentId, "SVM");
    const spl = svmTx(solanaTransaction(u.address, [splTransfer(randomSolanaAddress(), listed, u.address, 1_000_000_000_000n)]).wire);
    await refusedEverywhere(u, spl, 403, "policy_denied", Code.PermissionDenied);
    const open = await tenantWithPolicy([{ name: "any solana transaction", ruleType: "allow", chain: "SVM", methods: ["signTransaction"] }]);
    const v = await userWithWallet(open.environmentId, "SVM");
    await allowedEverywhere(v, svmTx(solanaTransaction(v.address, [splTransfer(randomSolanaAddress(), listed, v.address, 5n)]).wire));
  });
});

describe("EVM calldata and typed data are judged by what they authorise", () => {
  const transfer = (to: string, amount: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to as `0x${string}`, amount] });
  const approve = (spender: string, amount: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [spender as `0x${string}`, amount] });
  const permit = (spender: string) => ({
    message: "",
    context: {
      evmTypedData: {
        domain: { name: "USD Coin", version: "2", chainId: 1, verifyingContract: TOKEN },
        types: {
          Permit: [
            { name: "owner", type: "address" },
            { name: "spender", type: "address" },
            { name: "value", type: "uint256" },
            { name: "nonce", type: "uint256" },
            { name: "deadline", type: "uint256" },
          ],
        },
        primaryType: "Permit",
        message: { owner: LISTED_EVM, spender, value: "1000000000000", nonce: "0", deadline: "99999999999" },
      },
    },
  });

  it("an ERC-20 transfer to an allow-listed token contract moving tokens to a non-listed recipient is refused", async () => {
    const t = await tenantWithPolicy([{ name: "the token and the treasury", ruleType: "allow", chain: "EVM", addresses: [TOKEN, LISTED_EVM], methods: ["signTransaction"] }]);
    const u = await userWithWallet(t.environmentId, "EVM");
    await refusedEverywhere(u, evmTx(TOKEN, "0", transfer(STRANGER_EVM, 10n ** 12n)), 403, "policy_denied", Code.PermissionDenied);
    await refusedEverywhere(u, evmTx(TOKEN, "0", approve(STRANGER_EVM, 2n ** 256n - 1n)), 403, "policy_denied", Code.PermissionDenied);
    // Calldata the service does not decode cannot be cleared by an address list.
    await refusedEverywhere(u, evmTx(TOKEN, "0", "0xdeadbeef"), 403, "policy_denied", Code.PermissionDenied);
    // What it authorises is listed: allowed.
    await allowedEverywhere(u, evmTx(TOKEN, "0", transfer(LISTED_EVM, 10n ** 12n)));
    await allowedEverywhere(u, evmTx(LISTED_EVM, "1"));
    // A limit in ether cannot judge a token amount: refused under a rule with maxPerCall.
    const capped = await tenantWithPolicy([{ name: "capped", ruleType: "allow", chain: "EVM", addresses: [TOKEN, LISTED_EVM], valueLimit: { maxPerCall: "1" }, methods: ["signTransaction"] }]);
    const v = await userWithWallet(capped.environmentId, "EVM");
    await refusedEverywhere(v, evmTx(TOKEN, "0", transfer(LISTED_EVM, 10n ** 30n)), 403, "policy_denied", Code.PermissionDenied);
  });

  it("a Permit (EIP-712) is judged by its spender; other typed data passes only a rule without addresses or a limit", async () => {
    const t = await tenantWithPolicy([{ name: "permits to the treasury", ruleType: "allow", chain: "EVM", addresses: [TOKEN, LISTED_EVM], methods: ["signTypedData"] }]);
    const u = await userWithWallet(t.environmentId, "EVM");
    await refusedEverywhere(u, permit(STRANGER_EVM), 403, "policy_denied", Code.PermissionDenied);
    await allowedEverywhere(u, permit(LISTED_EVM));
    const mail = {
      message: "",
      context: { evmTypedData: { domain: { name: "Mail", chainId: 1 }, types: { Mail: [{ name: "contents", type: "string" }] }, primaryType: "Mail", message: { contents: "hi" } } },
    };
    await refusedEverywhere(u, mail, 403, "policy_denied", Code.PermissionDenied);
    const open = await tenantWithPolicy([{ name: "typed data", ruleType: "allow", chain: "EVM", methods: ["signTypedData"] }]);
    const v = await userWithWallet(open.environmentId, "EVM");
    await allowedEverywhere(v, mail);
    await allowedEverywhere(v, permit(STRANGER_EVM));
  });
});

describe("EVM addresses", () => {
  it("an all-caps recipient is the checksummed address (signed, judged by the policy); a wrong checksum is 400", async () => {
    const t = await tenantWithPolicy([{ name: "to the treasury", ruleType: "allow", chain: "EVM", addresses: [LISTED_EVM.toUpperCase().replace("0X", "0x")], methods: ["signTransaction"] }]);
    const u = await userWithWallet(t.environmentId, "EVM");
    const caps = `0x${LISTED_EVM.slice(2).toUpperCase()}`;
    const opened = await restSign(u, evmTx(caps, "1"));
    const room = (await call(app.baseUrl, "GET", `/sdk/${u.environmentId}/waas/rooms/${opened.roomId}`, { token: u.jwt })).body as RoomView;
    expect(parseTransaction(room.request.serialized).to).toBe(LISTED_EVM.toLowerCase());
    expect(await grpcSign(u, evmTx(caps, "1"))).toBe("ok");
    await refusedEverywhere(u, evmTx(`0x${STRANGER_EVM.slice(2).toUpperCase()}`, "1"), 403, "policy_denied", Code.PermissionDenied);
    // Mixed case that is not the EIP-55 checksum: a typo, refused before anything is serialised.
    const typo = "0x000000000000000000000000000000000000DeAd";
    expect(typo).not.toBe(getAddress(typo.toLowerCase()));
    const bad = await refusedEverywhere(u, evmTx(typo, "1"), 400, "invalid_sign_request", Code.InvalidArgument);
    expect(bad.payload).toMatchObject({ field: "context.evmTransaction.to" });
    await refusedEverywhere(u, { message: "", context: { eip7702Auth: { address: typo, chainId: 1, nonce: 0 } } }, 400, "invalid_sign_request", Code.InvalidArgument);
  });
});

/** Passes a second factor for the session of `jwt` (the factor checks have their own tests): new tokens and a single-use mfaToken. */
async function freshFactor(environmentId: string, jwt: string) {
  const env = (await findEnvironmentTenant(app.db, environmentId, null))!;
  const claims = decodeJwt(jwt) as Record<string, any>;
  const passed = await passSecondFactor(
    app.deps,
    { environmentId, environmentName: env.name, projectId: env.projectId, organizationId: env.organizationId },
    { kind: "end_user", environmentId, userId: claims.sub, sessionId: claims.sid, scope: claims.scope, issuedAt: claims.iat, expiresAt: claims.exp },
    { type: "totp", deviceId: null },
    { ipAddress: null, userAgent: null, requestId: "" },
    { createMfaToken: { singleUse: true } },
  );
  return { jwt: passed.tokens.jwt, mfaToken: passed.mfaToken! };
}

const withHeaders = (jwt: string, extra: Record<string, string> = {}) =>
  new SDKApi(new Configuration({ basePath: `${app.baseUrl}/api/v0`, headers: { Authorization: `Bearer ${jwt}`, ...extra } }));

describe("recovering the device's sealed share", () => {
  it("needs a fresh factor where the environment requires one for exports: a stolen session alone is refused (403 invalid_mfa_token)", async () => {
    const t = await tenantWithPolicy([], { enabled: true, required: false, actions: [{ action: "wallet.waas.export", required: true }] });
    const u = await userWithWallet(t.environmentId, "EVM");
    const backedUp = await u.sdk.backupKeyShares({
      environmentId: u.environmentId,
      walletId: u.walletId,
      backupMultipleClientKeySharesRequest: { encryptedAccountCredentials: u.device.backupCredentials(), passwordEncrypted: true },
    });
    expect(backedUp.keyShares).toHaveLength(1);
    // The session was opened long ago (stolen): no recent sign-in stands in for the factor.
    await app.db.none("UPDATE sessions SET created_at = now() - interval '10 minutes' WHERE id = $1", [u.sessionId]);
    const recover = (sdk: SDKApi) => sdk.recoverKeyShares({ environmentId: u.environmentId, walletId: u.walletId, recoverMultipleClientKeySharesRequest: {} });
    const stolen = await refused(recover(u.sdk));
    expect(stolen.status).toBe(403);
    expect(stolen.body.code).toBe("invalid_mfa_token");
    const backups = createClient(SdkWaasBackupService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const overGrpc = await backups.recoverKeyShares({ environmentId: u.environmentId, walletId: u.walletId }, { headers: u.headers }).catch((e) => ConnectError.from(e));
    expect(overGrpc).toBeInstanceOf(ConnectError);
    expect((overGrpc as ConnectError).code).toBe(Code.PermissionDenied);
    const forged = withHeaders(u.jwt, { "x-mfa-auth-token": "mfa_forged" });
    expect((await refused(recover(forged))).body.code).toBe("invalid_mfa_token");

    // With a fresh factor of this session, the device gets its share back.
    const passed = await freshFactor(u.environmentId, u.jwt);
    const fresh = withHeaders(passed.jwt, { "x-mfa-auth-token": passed.mfaToken });
    const recovered = await recover(fresh);
    expect(recovered.keyShares[0]!.encryptedAccountCredential).toBeTruthy();
    // Single use: spent.
    expect((await refused(recover(fresh))).body.code).toBe("invalid_mfa_token");
  });

  it("an embedded wallet's passcode-sealed backup is gated the same way: a stolen session cannot assemble the key", async () => {
    const t = await tenantWithPolicy([], { enabled: true, required: false, actions: [{ action: "wallet.waas.export", required: true }] });
    const s = await signInAs(app, t.environmentId);
    const created = await sdkFor(app.baseUrl, s.jwt).createEmbeddedWallets({
      environmentId: t.environmentId,
      createEmbeddedWalletsRequest: { embeddedWallets: [{ chain: EmbeddedWalletChainEnum.Evm, embeddedWalletProvider: EmbeddedWalletProviderEnum.Turnkey }] },
    });
    const jwt = created.jwt!;
    await app.db.none("UPDATE sessions SET created_at = now() - interval '10 minutes' WHERE id = $1", [s.sessionId]);
    const stolen = await refused(withHeaders(jwt).getEmbeddedWalletBackups({ environmentId: t.environmentId }));
    expect(stolen.status).toBe(403);
    expect(stolen.body.code).toBe("invalid_mfa_token");
    const grpc = createClient(SdkEmbeddedWalletsService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const overGrpc = await grpc.getEmbeddedWalletBackups({ environmentId: t.environmentId }, { headers: { authorization: `Bearer ${jwt}` } }).catch((e) => ConnectError.from(e));
    expect((overGrpc as ConnectError).code).toBe(Code.PermissionDenied);
    const passed = await freshFactor(t.environmentId, jwt);
    const backup = await withHeaders(passed.jwt, { "x-mfa-auth-token": passed.mfaToken }).getEmbeddedWalletBackups({ environmentId: t.environmentId });
    expect(backup.secret).toBeTruthy();
  });
});
