import { randomUUID } from "node:crypto";
import { createClient, Code, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { CoinbaseOnrampOrderPaymentMethod, type SDKApi } from "@dynamic-labs/sdk-api";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkExchangeAccountsService } from "../../src/gen/sigil/exchange_accounts/v0/sdk_exchange_accounts_service_pb.js";
import { DEFAULT_WEBHOOK_SETTINGS } from "../../src/config.js";
import { createExchangeApi } from "../../src/adapters/exchange-api.js";
import { DomainError } from "../../src/errors.js";
import type { TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";
import type { ExchangePeer } from "./support/exchange-peer.js";
import { startExchangeSetup, type ExchangeSetup } from "./support/exchange-setup.js";

/**
 * The exchange on-ramp (getExchangeSupportedNetworks, generateExchangeOnrampBuyUrl, createExchangeOnrampOrder;
 * the published client's vendor-named onramp operations) through the published client, against a loopback
 * exchange that checks the request signatures and the buy URL's signature.
 */

let setup: ExchangeSetup;
let app: TestApp;
let peer: ExchangePeer;
let t: BootstrapResult;

const sdk = (jwt?: string): SDKApi => setup.sdk(jwt);

const buyRequest = (over: Record<string, unknown> = {}) => ({
  destinationAddress: "0x6666666666666666666666666666666666666666",
  networks: ["ethereum", "base"],
  assets: ["ETH", "USDC"],
  presetFiatAmount: "100",
  fiatCurrency: "USD",
  partnerUserRef: "user & co=1",
  ...over,
});

beforeAll(async () => {
  // Every exchange this file connects is the environment's on-ramp.
  setup = await startExchangeSetup({ onRampProvider: "commerce" });
  ({ app, peer, tenant: t } = setup);
}, 90_000);
afterAll(() => setup?.stop());
beforeEach(() => {
  peer.down = false;
  peer.hang = false;
  peer.hugeNetworks = 0;
  peer.violations.length = 0;
});

describe("getExchangeSupportedNetworks", () => {
  it("answers the exchange's networks over a signed request", async () => {
    expect(await sdk().getCoinbaseSupportedNetworks({ environmentId: t.environmentId })).toEqual(["ethereum", "base", "solana"]);
    const asked = peer.requests.filter((r) => r.path === "/v1/networks");
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.at(-1)!.headers["x-sigil-signature"]).toBeTruthy();
    expect(peer.violations).toEqual([]);
  });

  it("an exchange that is down is 503 exchange_unavailable with its Retry-After", async () => {
    peer.down = true;
    const r = await refused(sdk().getCoinbaseSupportedNetworks({ environmentId: t.environmentId }));
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ code: "exchange_unavailable" });
    expect(r.headers.get("retry-after")).toBe("7");
  });

  it("an environment without an on-ramp exchange is 422 not_configured; so is one whose exchange has no credentials", async () => {
    const bare = await app.bootstrap({ ownerEmail: `${randomUUID()}@example.com` });
    const none = await refused(sdk().getCoinbaseSupportedNetworks({ environmentId: bare.environmentId }));
    expect(none.status).toBe(422);
    expect(none.body).toMatchObject({ code: "not_configured" });
    const res = await call(app.baseUrl, "POST", `/environments/${bare.environmentId}/settings/exchanges`, {
      token: bare.token,
      body: { exchange: "generic", apiBaseUrl: peer.baseUrl, onRampProvider: "commerce" },
    });
    expect(res.status, res.text).toBe(201);
    const noCredentials = await refused(sdk().getCoinbaseSupportedNetworks({ environmentId: bare.environmentId }));
    expect(noCredentials.status).toBe(422);
    expect(noCredentials.body).toMatchObject({ code: "not_configured" });
  });

  it("an exchange that refuses the connection's signature (a wrong secret) is 422 not_configured", async () => {
    const { tenant: other } = await setup.connectedTenant({ apiSecret: "not-the-exchange-secret" });
    const r = await refused(sdk().getCoinbaseSupportedNetworks({ environmentId: other.environmentId }));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "not_configured" });
    expect(peer.violations).toEqual(["GET /v1/networks: bad X-Sigil-Signature"]);
  });

  it("an exchange URL on a private address is refused when written (400) and, in a row from before that rule, when used (422 not_configured)", async () => {
    const other = await app.bootstrap({ ownerEmail: `${randomUUID()}@example.com` });
    const written = await call(app.baseUrl, "POST", `/environments/${other.environmentId}/settings/exchanges`, {
      token: other.token,
      body: { exchange: "generic", apiBaseUrl: "http://10.0.0.7:8080", apiKey: peer.apiKey, apiSecret: peer.apiSecret, onRampProvider: "commerce" },
    });
    expect([written.status, written.body.code]).toEqual([400, "invalid_api_base_url"]);
    const id = await setup.connectExchange(other);
    await app.db.none("UPDATE exchanges SET api_base_url = 'http://10.0.0.7:8080' WHERE id = $1", [id]);
    const r = await refused(sdk().getCoinbaseSupportedNetworks({ environmentId: other.environmentId }));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "not_configured" });
  });
});

describe("generateExchangeOnrampBuyUrl", () => {
  it("answers a buy URL whose parameters the exchange verifies with its secret", async () => {
    const { url } = await sdk().generateCoinbaseOnrampBuyUrl({ environmentId: t.environmentId, coinbaseOnrampGetBuyUrlRequest: buyRequest() });
    expect(url.startsWith(`${peer.baseUrl}/buy?`)).toBe(true);
    const { ok, params } = peer.verifyBuyUrl(url);
    expect(ok).toBe(true);
    expect(params.get("destination_address")).toBe("0x6666666666666666666666666666666666666666");
    expect(params.get("networks")).toBe("ethereum,base");
    expect(params.get("partner_user_ref")).toBe("user & co=1");
    // A parameter changed after signing no longer verifies.
    expect(peer.verifyBuyUrl(url.replace("0x6666", "0x7777")).ok).toBe(false);
  });

  it("sends the buyer back only to the app's own pages (422 redirect_url_not_allowed)", async () => {
    const r = await refused(sdk().generateCoinbaseOnrampBuyUrl({ environmentId: t.environmentId, coinbaseOnrampGetBuyUrlRequest: buyRequest({ redirectUrl: "https://evil.example/" }) }));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "redirect_url_not_allowed" });
  });

  it("refuses a request without a destination (400)", async () => {
    const res = await call(app.baseUrl, "POST", `/sdk/${t.environmentId}/onramps/exchange/buy`, { body: { networks: ["base"] } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_error" });
  });
});

describe("createExchangeOnrampOrder", () => {
  const order = {
    agreementAcceptedAt: new Date(),
    destinationAddress: "0x8888888888888888888888888888888888888888",
    destinationNetwork: "base",
    partnerUserRef: "ref-1",
    paymentAmount: "100.00",
    paymentCurrency: "USD",
    paymentMethod: CoinbaseOnrampOrderPaymentMethod.GuestCheckoutApplePay,
    purchaseCurrency: "ETH",
  };

  it("places the signed-in user's order with the exchange and answers it in the client's shape", async () => {
    const user = await signInAs(app, t.environmentId);
    const r = await sdk(user.jwt).createCoinbaseOnrampOrder({ environmentId: t.environmentId, coinbaseOnrampOrderCreateRequest: order });
    expect(r.order).toMatchObject({
      paymentTotal: "101.50",
      paymentCurrency: "USD",
      purchaseCurrency: "ETH",
      destinationAddress: order.destinationAddress,
      destinationNetwork: "base",
      status: "ONRAMP_ORDER_STATUS_PENDING_PAYMENT",
      fees: [{ type: "FEE_TYPE_NETWORK", amount: "1.50", currency: "USD" }],
      partnerUserRef: "ref-1",
    });
    expect(r.order.createdAt).toBeInstanceOf(Date);
    expect(r.paymentLink).toMatchObject({ paymentLinkType: "PAYMENT_LINK_TYPE_APPLE_PAY_BUTTON" });
    const sent = JSON.parse(peer.requests.filter((q) => q.path === "/v1/orders").at(-1)!.body);
    expect(sent).toMatchObject({ user_id: user.userId, payment_currency: "USD", destination_network: "base" });
    expect(peer.violations).toEqual([]);
  });

  it("needs a session (401)", async () => {
    const r = await refused(sdk().createCoinbaseOnrampOrder({ environmentId: t.environmentId, coinbaseOnrampOrderCreateRequest: order }));
    expect(r.status).toBe(401);
  });
});

describe("over gRPC", () => {
  it("answers the networks, and not_configured as FAILED_PRECONDITION", async () => {
    const client = createClient(SdkExchangeAccountsService, createGrpcTransport({ baseUrl: app.baseUrl }));
    expect((await client.getExchangeSupportedNetworks({ environmentId: t.environmentId })).networks).toEqual(["ethereum", "base", "solana"]);
    const bare = await app.bootstrap({ ownerEmail: `${randomUUID()}@example.com` });
    const err = await client.getExchangeSupportedNetworks({ environmentId: bare.environmentId }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.FailedPrecondition);
  });
});

describe("the exchange adapter's bounds", () => {
  const target = () => ({ baseUrl: peer.baseUrl, environmentName: "sandbox" as const, apiKey: peer.apiKey, apiSecret: peer.apiSecret, passphrase: peer.passphrase });
  const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as DomainError);

  it("a hung exchange is exchange_unavailable once the deadline passes", async () => {
    peer.hang = true;
    const api = createExchangeApi(DEFAULT_WEBHOOK_SETTINGS, { timeoutMs: 300 });
    const err = await failure(api.call(target(), { method: "GET", path: "/v1/networks" }));
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: "exchange_unavailable", payload: { retryAfterSeconds: 5 } });
  });

  it("an answer larger than the bound is exchange_unavailable, never a truncated list", async () => {
    peer.hugeNetworks = 5000;
    const api = createExchangeApi(DEFAULT_WEBHOOK_SETTINGS, { maxResponseBytes: 1000 });
    const err = await failure(api.call(target(), { method: "GET", path: "/v1/networks" }));
    expect(err).toMatchObject({ code: "exchange_unavailable" });
  });

  it("loopback is refused when the operator does not allow it for sandboxes (422 not_configured)", async () => {
    const api = createExchangeApi({ ...DEFAULT_WEBHOOK_SETTINGS, sandboxLoopback: false });
    const err = await failure(api.call(target(), { method: "GET", path: "/v1/networks" }));
    expect(err).toMatchObject({ code: "not_configured" });
  });
});
