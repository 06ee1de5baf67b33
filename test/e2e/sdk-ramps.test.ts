import { createClient, Code, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ChainEnum, Configuration, SDKApi } from "@dynamic-labs/sdk-api";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { DEFAULT_RAMP_SETTINGS } from "../../src/config-ramps.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkRampsService } from "../../src/gen/sigil/ramps/v0/sdk_ramps_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { neutralWords } from "../support/neutral-words.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";
import { RAMP_PEER_MAX_AMOUNT, startRampPeer, type RampPeer } from "./support/ramp-peer.js";
import { PEER_KEY_ID, PEER_SECRET } from "./support/vendor-peer.js";

/**
 * The on-ramp / off-ramp listings and the card payment (the published client's getSupportedOnramps,
 * getSupportedOfframps and its vendor-named createCryptoDotComPayment, reaching the contract's
 * /onramps/cardOnramp/payment through test/support/neutral-words.ts) against a loopback ramp provider that
 * checks what Sigil signs, requests and buy URLs alike.
 */

let plain: TestApp;
let live: TestApp;
let peer: RampPeer;
let plainTenant: BootstrapResult;
let tenant: BootstrapResult;
const WALLET = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed";
const CHECKSUMMED = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

/** The published client with the session JWT and, when given, an Idempotency-Key header. */
const client = (app: TestApp, jwt?: string, idempotencyKey?: string) =>
  new SDKApi(new Configuration({ basePath: `${app.baseUrl}/api/v0`, ...(jwt ? { accessToken: jwt } : {}), headers: { ...(jwt ? { Authorization: `Bearer ${jwt}` } : {}), ...(idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {}) } })).withMiddleware(neutralWords);
const payment = (overrides: Record<string, unknown> = {}) => ({ amount: 2500, currency: "usd", walletAddress: WALLET, chain: ChainEnum.Evm, networkId: "1", orderId: "order-1", metadata: { cart: "42" }, ...overrides });

beforeAll(async () => {
  peer = await startRampPeer();
  [plain, live] = await Promise.all([
    startTestApp({}, { dispatcher: false }),
    startTestApp({ ramps: { ...DEFAULT_RAMP_SETTINGS, timeoutMs: 1500, rampProvider: { url: peer.url, keyId: PEER_KEY_ID, secret: PEER_SECRET } } }, { dispatcher: false }),
  ]);
  [plainTenant, tenant] = await Promise.all([plain.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` }), live.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` })]);
}, 90_000);
afterAll(async () => {
  await Promise.all([plain?.stop(), live?.stop()]);
  await peer?.close();
});

describe("without a ramp provider", () => {
  it("answers 422 not_configured for the listings and the card payment", async () => {
    const onramps = await refused(sdkFor(plain.baseUrl).getSupportedOnramps({ environmentId: plainTenant.environmentId, walletAddress: WALLET, chain: "EVM" }));
    expect(onramps.status).toBe(422);
    expect(onramps.body).toMatchObject({ code: "not_configured" });
    const user = await signInAs(plain, plainTenant.environmentId);
    const pay = await refused(client(plain, user.jwt).createCryptoDotComPayment({ environmentId: plainTenant.environmentId, cryptoDotComPaymentCreateRequest: payment() }));
    expect(pay.status).toBe(422);
    expect(pay.body).toMatchObject({ code: "not_configured" });
  });
});

describe("getSupportedOnramps and getSupportedOfframps", () => {
  it("lists the provider's on-ramps with a buy URL Sigil signed, which the provider accepts and a tampered copy it refuses", async () => {
    const before = peer.seen.length;
    const res = await sdkFor(live.baseUrl).getSupportedOnramps({ environmentId: tenant.environmentId, walletAddress: WALLET, chain: "EVM", networkId: "1", token: "USDC", tokenAmount: 50, currency: "eur" });
    expect(res.onramps).toEqual([{ provider: "card", name: "Card", iconUrl: `${peer.url}/icons/card.svg`, url: expect.stringContaining(`${peer.url}/buy?`), qrCode: undefined }]);
    const asked = peer.seen[before]!;
    expect(asked.refusal).toBeNull();
    expect(Object.fromEntries(asked.url.searchParams)).toEqual({ walletAddress: CHECKSUMMED, chain: "EVM", networkId: "1", token: "USDC", tokenAmount: "50", currency: "EUR" });
    const buy = new URL(res.onramps![0]!.url);
    expect(buy.searchParams.get("walletAddress")).toBe(CHECKSUMMED);
    expect(buy.searchParams.get("flow")).toBe("card");
    expect((await fetch(buy)).status).toBe(200);
    buy.searchParams.set("walletAddress", "0x0000000000000000000000000000000000000001");
    expect((await fetch(buy)).status).toBe(401);
  });

  it("lists the provider's off-ramps", async () => {
    const res = await sdkFor(live.baseUrl).getSupportedOfframps({ environmentId: tenant.environmentId, walletAddress: WALLET, chain: "EVM" });
    expect(res.offramps!.map((o) => [o.provider, o.name])).toEqual([["bank", "Bank transfer"]]);
  });

  it("answers 400 for a malformed wallet, chain, network id, currency or amount, sending nothing", async () => {
    const before = peer.seen.length;
    const sdk = sdkFor(live.baseUrl);
    const ask = (q: Partial<Parameters<SDKApi["getSupportedOnramps"]>[0]>) => refused(sdk.getSupportedOnramps({ environmentId: tenant.environmentId, walletAddress: WALLET, chain: "EVM", ...q }));
    expect((await ask({ walletAddress: "0x123" })).body).toMatchObject({ code: "invalid_wallet_address" });
    expect((await ask({ chain: "NOPE" })).body).toMatchObject({ code: "invalid_chain" });
    expect((await ask({ networkId: "one" })).body).toMatchObject({ code: "invalid_network_id" });
    expect((await ask({ currency: "euro" })).body).toMatchObject({ code: "invalid_currency" });
    const amount = await ask({ tokenAmount: -1 });
    expect([amount.status, amount.body.code]).toEqual([400, "invalid_amount"]);
    expect(peer.seen.length).toBe(before);
  });

  it("answers 503 provider_unavailable with the provider's Retry-After when it is down", async () => {
    peer.mode = "down";
    onTestFinished(() => void (peer.mode = "ok"));
    const down = await refused(sdkFor(live.baseUrl).getSupportedOnramps({ environmentId: tenant.environmentId, walletAddress: WALLET, chain: "EVM" }));
    expect([down.status, down.body.code, down.headers.get("retry-after")]).toEqual([503, "provider_unavailable", "7"]);
  });
});

describe("createCardOnrampPayment", () => {
  it("creates a payment at the provider for the signed-in user (201), signed, with the canonical wallet", async () => {
    const user = await signInAs(live, tenant.environmentId);
    const res = await client(live, user.jwt).createCryptoDotComPaymentRaw({ environmentId: tenant.environmentId, cryptoDotComPaymentCreateRequest: payment() });
    expect(res.raw.status).toBe(201);
    const created = await res.value();
    expect(created).toMatchObject({ amount: 2500, currency: "USD", status: "pending", orderId: "order-1", metadata: { cart: "42" }, liveMode: false });
    expect(created.paymentUrl).toBe(`${peer.url}/pay/${created.id}`);
    expect(peer.payments.has(created.id)).toBe(true);
    const sent = peer.seen.at(-1)!;
    expect(sent.refusal).toBeNull();
    expect(JSON.parse(sent.body)).toMatchObject({ walletAddress: CHECKSUMMED, currency: "USD", amount: 2500 });
  });

  it("with an Idempotency-Key answers the first payment to a retry, and 422 idempotency_key_reused for another body", async () => {
    const user = await signInAs(live, tenant.environmentId);
    const key = crypto.randomUUID();
    const first = await client(live, user.jwt, key).createCryptoDotComPayment({ environmentId: tenant.environmentId, cryptoDotComPaymentCreateRequest: payment() });
    const paymentsBefore = peer.payments.size;
    const again = await client(live, user.jwt, key).createCryptoDotComPayment({ environmentId: tenant.environmentId, cryptoDotComPaymentCreateRequest: payment() });
    expect(again.id).toBe(first.id);
    expect(peer.payments.size).toBe(paymentsBefore);
    const reused = await refused(client(live, user.jwt, key).createCryptoDotComPayment({ environmentId: tenant.environmentId, cryptoDotComPaymentCreateRequest: payment({ amount: 9999 }) }));
    expect([reused.status, reused.body.code]).toEqual([422, "idempotency_key_reused"]);
    // Another user's equal key is another payment.
    const other = await signInAs(live, tenant.environmentId);
    expect((await client(live, other.jwt, key).createCryptoDotComPayment({ environmentId: tenant.environmentId, cryptoDotComPaymentCreateRequest: payment() })).id).not.toBe(first.id);
  });

  it("answers 400 for a bad amount or wallet, 422 provider_rejected when the provider refuses, 401 without a session", async () => {
    const user = await signInAs(live, tenant.environmentId);
    const pay = (body: Record<string, unknown>, signedIn = true) =>
      refused(client(live, signedIn ? user.jwt : undefined).createCryptoDotComPayment({ environmentId: tenant.environmentId, cryptoDotComPaymentCreateRequest: payment(body) as never }));
    expect((await pay({ amount: 12.5 })).body).toMatchObject({ code: "invalid_amount" });
    expect((await pay({ walletAddress: "nope" })).body).toMatchObject({ code: "invalid_wallet_address" });
    const rejected = await pay({ amount: RAMP_PEER_MAX_AMOUNT + 1 });
    expect([rejected.status, rejected.body.code]).toEqual([422, "provider_rejected"]);
    expect(rejected.body.error).toMatch(/above the limit/);
    expect((await pay({}, false)).status).toBe(401);
  });
});

describe("createCardOnrampPayment's audit trail", () => {
  const rows = (userId: string) =>
    live.db.any("SELECT action, resource_type, resource_id, actor_user_id, changes FROM audit_log WHERE environment_id = $1 AND actor_user_id = $2 AND action LIKE 'card_onramp_payment.%'", [
      tenant.environmentId,
      userId,
    ]);

  it("records a payment under the user once per provider payment (a retry or a race with one key adds no row), none for a refusal, without the key", async () => {
    const user = await signInAs(live, tenant.environmentId);
    const key = crypto.randomUUID();
    const pay = () => client(live, user.jwt, key).createCryptoDotComPayment({ environmentId: tenant.environmentId, cryptoDotComPaymentCreateRequest: payment() });
    const [a, b] = await Promise.all([pay(), pay()]);
    expect(b.id).toBe(a.id);
    await pay();
    const recorded = await rows(user.userId);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ action: "card_onramp_payment.created", resource_type: "card_onramp_payment", resource_id: a.id, actor_user_id: user.userId });
    expect(recorded[0].changes.after).toMatchObject({ paymentId: a.id, amount: 2500, currency: "USD", walletAddress: CHECKSUMMED, status: "pending" });
    expect(JSON.stringify(recorded[0])).not.toContain(key);
    await refused(client(live, user.jwt).createCryptoDotComPayment({ environmentId: tenant.environmentId, cryptoDotComPaymentCreateRequest: payment({ amount: RAMP_PEER_MAX_AMOUNT + 1 }) }));
    expect(await rows(user.userId)).toHaveLength(1);
    const unkeyed = await client(live, user.jwt).createCryptoDotComPayment({ environmentId: tenant.environmentId, cryptoDotComPaymentCreateRequest: payment() });
    expect((await rows(user.userId)).map((r) => r.resource_id).sort()).toEqual([a.id, unkeyed.id].sort());
  });
});

describe("SdkRampsService over gRPC", () => {
  it("lists on-ramps, creates a payment, and answers UNAVAILABLE with retry-after when the provider is down", async () => {
    const grpc = createClient(SdkRampsService, createGrpcTransport({ baseUrl: live.baseUrl }));
    const listed = await grpc.getSupportedOnramps({ environmentId: tenant.environmentId, walletAddress: WALLET, chain: "EVM" });
    expect(listed.onramps.map((o) => o.provider)).toEqual(["card"]);
    const user = await signInAs(live, tenant.environmentId);
    const key = crypto.randomUUID();
    const headers = { authorization: `Bearer ${user.jwt}`, "idempotency-key": key };
    const request = { environmentId: tenant.environmentId, amount: 1000, currency: "USD", walletAddress: WALLET, chain: "EVM" };
    const first = await grpc.createCardOnrampPayment(request, { headers });
    expect((await grpc.createCardOnrampPayment(request, { headers })).payment!.id).toBe(first.payment!.id);
    peer.mode = "down";
    onTestFinished(() => void (peer.mode = "ok"));
    const down = await grpc.getSupportedOfframps({ environmentId: tenant.environmentId, walletAddress: WALLET, chain: "EVM" }).catch((e) => e);
    expect(ConnectError.from(down).code).toBe(Code.Unavailable);
    expect(ConnectError.from(down).metadata.get("retry-after")).toBe("7");
  });
});
