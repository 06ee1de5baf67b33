import { createClient, Code, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ChainEnum } from "@dynamic-labs/sdk-api";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { DEFAULT_CHAIN_SETTINGS } from "../../src/config-chains.js";
import { DEFAULT_RAMP_SETTINGS } from "../../src/config-ramps.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { ProvidersService } from "../../src/gen/sigil/providers/v0/providers_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { startEvmChain, type EvmChain } from "./support/evm-chain.js";
import { startPricePeer, type PricePeer } from "./support/price-peer.js";
import { startRampPeer, type RampPeer } from "./support/ramp-peer.js";
import { PEER_KEY_ID, PEER_SECRET, refusalOfUrl, type PeerKey } from "./support/vendor-peer.js";

/**
 * An environment's own price source and ramp provider (providers of kind priceSource and rampProvider,
 * the secret sealed at rest), used before the operator's, through the published client's SDK calls: each
 * peer checks what Sigil signed with its own secret, so a request signed with the wrong one is refused.
 */

const OWN_KEY: PeerKey = { keyId: "environment-key", secret: "environment-secret-9876543210" };
const WALLET = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed";
const NATIVE = "0x0000000000000000000000000000000000000000";

let app: TestApp;
let evm: EvmChain;
let operatorPrices: PricePeer;
let ownPrices: PricePeer;
let operatorRamps: RampPeer;
let ownRamps: RampPeer;
/** Configures its own vendors. */
let a: BootstrapResult;
/** Configures none: the operator's serve it. */
let b: BootstrapResult;

beforeAll(async () => {
  [evm, operatorPrices, ownPrices, operatorRamps, ownRamps] = await Promise.all([startEvmChain(), startPricePeer(), startPricePeer(OWN_KEY), startRampPeer(), startRampPeer(OWN_KEY)]);
  operatorPrices.rates = { EUR: "0.5" };
  operatorPrices.prices = { ETH: "1000", [`EVM:31337:${NATIVE}`]: "1000" };
  ownPrices.rates = { EUR: "0.9" };
  ownPrices.prices = { ETH: "3000", [`EVM:31337:${NATIVE}`]: "3000" };
  app = await startTestApp(
    {
      chains: { ...DEFAULT_CHAIN_SETTINGS, evmRpcUrls: { 31337: evm.rpcUrl } },
      ramps: {
        ...DEFAULT_RAMP_SETTINGS,
        timeoutMs: 1500,
        priceSource: { url: operatorPrices.url, keyId: PEER_KEY_ID, secret: PEER_SECRET },
        rampProvider: { url: operatorRamps.url, keyId: PEER_KEY_ID, secret: PEER_SECRET },
      },
    },
    { dispatcher: false },
  );
  [a, b] = await Promise.all([app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` }), app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` })]);
  await createVendor(a, "priceSource", ownPrices.url);
  await createVendor(a, "rampProvider", ownRamps.url);
}, 90_000);
afterAll(async () => {
  await app?.stop();
  await Promise.all([evm?.close(), operatorPrices?.close(), ownPrices?.close(), operatorRamps?.close(), ownRamps?.close()]);
});

const providersPath = (environmentId: string) => `/environments/${environmentId}/settings/providers`;

async function createVendor(t: BootstrapResult, provider: string, url: string) {
  const res = await call(app.baseUrl, "POST", providersPath(t.environmentId), { token: t.token, body: { provider, baseAuthUrl: url, clientId: OWN_KEY.keyId, clientSecret: OWN_KEY.secret } });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string };
}

async function vendorOf(t: BootstrapResult, provider: string): Promise<{ id: string }> {
  const res = await call(app.baseUrl, "GET", providersPath(t.environmentId), { token: t.token });
  return (res.body.providers as { id: string; provider: string }[]).find((p) => p.provider === provider)!;
}

const eurRate = async (environmentId: string) =>
  (await sdkFor(app.baseUrl).getCurrencyExchangeRates({ environmentId })).find((r) => r.type === "fiat" && r.code === "EUR")?.value;
const onrampUrl = async (environmentId: string) =>
  new URL((await sdkFor(app.baseUrl).getSupportedOnramps({ environmentId, walletAddress: WALLET, chain: "EVM" })).onramps![0]!.url);

describe("an environment's own price source", () => {
  it("answers that environment's rates, signed with its secret; an environment without one gets the operator's, and neither's cache serves the other", async () => {
    const ownSeen = ownPrices.seen.length;
    // B first: its cached answer must not fill A's read, nor A's B's second one.
    expect(await eurRate(b.environmentId)).toBe(0.5);
    expect(ownPrices.seen.length).toBe(ownSeen);
    expect(await eurRate(a.environmentId)).toBe(0.9);
    const asked = ownPrices.seen.slice(ownSeen);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((r) => r.refusal === null && r.headers["x-sigil-key-id"] === OWN_KEY.keyId)).toBe(true);
    expect(await eurRate(b.environmentId)).toBe(0.5);
    expect(await eurRate(a.environmentId)).toBe(0.9);
  });

  it("prices A's balances with its own source and B's with the operator's", async () => {
    const holder = privateKeyToAddress(generatePrivateKey());
    await evm.transferNative(holder, 2n * 10n ** 18n);
    const read = (environmentId: string) => sdkFor(app.baseUrl).getAccountBalances({ environmentId, chainName: ChainEnum.Evm, accountAddress: holder, networkId: 31337 });
    expect((await read(b.environmentId))[0]).toMatchObject({ address: NATIVE, balance: 2, price: 1000, marketValue: 2000 });
    expect((await read(a.environmentId))[0]).toMatchObject({ address: NATIVE, balance: 2, price: 3000, marketValue: 6000 });
    expect((await read(b.environmentId))[0]).toMatchObject({ price: 1000 });
  });
});

describe("an environment's own ramp provider", () => {
  it("lists that provider's on-ramps with URLs signed with the environment's secret; another environment gets the operator's", async () => {
    const ownUrl = await onrampUrl(a.environmentId);
    expect(ownUrl.origin).toBe(new URL(ownRamps.url).origin);
    expect(ownUrl.searchParams.get("keyId")).toBe(OWN_KEY.keyId);
    expect(refusalOfUrl(ownUrl, undefined, OWN_KEY)).toBeNull();
    expect(ownRamps.seen.at(-1)).toMatchObject({ refusal: null });
    const operatorUrl = await onrampUrl(b.environmentId);
    expect(operatorUrl.origin).toBe(new URL(operatorRamps.url).origin);
    expect(refusalOfUrl(operatorUrl)).toBeNull();
  });

  it("falls back to the operator's while disabled, and serves again once enabled", async () => {
    const own = await vendorOf(a, "rampProvider");
    const toggle = (action: "disable" | "enable") => call(app.baseUrl, "PUT", `/settings/providers/${own.id}/${action}`, { token: a.token });
    expect((await toggle("disable")).status).toBe(200);
    onTestFinished(async () => void (await toggle("enable")));
    expect((await onrampUrl(a.environmentId)).origin).toBe(new URL(operatorRamps.url).origin);
    expect((await toggle("enable")).status).toBe(200);
    expect((await onrampUrl(a.environmentId)).origin).toBe(new URL(ownRamps.url).origin);
  });
});

describe("the vendor provider's secret", () => {
  it("is never returned by the providers API, never shown to SDK callers, and is sealed in the database", async () => {
    const own = await vendorOf(a, "priceSource");
    const list = await call(app.baseUrl, "GET", providersPath(a.environmentId), { token: a.token });
    const one = await call(app.baseUrl, "GET", `/settings/providers/${own.id}`, { token: a.token });
    for (const res of [list, one]) {
      expect(res.status).toBe(200);
      expect(res.text).not.toContain(OWN_KEY.secret);
    }
    expect(one.body).toMatchObject({ provider: "priceSource", baseAuthUrl: expect.stringContaining(new URL(ownPrices.url).host), clientId: OWN_KEY.keyId });
    const row = await app.db.one("SELECT * FROM providers WHERE id = $1", [own.id]);
    expect(JSON.stringify(row)).not.toContain(OWN_KEY.secret);
    expect(row.client_secret_sealed).toEqual(expect.any(String));
    // The SDK's environment view lists sign-in providers to anyone: a vendor's URL and key id stay off it.
    const settings = await sdkFor(app.baseUrl).getEnvironmentSettings({ environmentId: a.environmentId });
    expect(JSON.stringify(settings)).not.toContain(OWN_KEY.keyId);
  });
});

describe("writing a vendor provider", () => {
  const create = (environmentId: string, token: string, body: Record<string, unknown>) => call(app.baseUrl, "POST", providersPath(environmentId), { token, body });

  it("refuses a live environment's http, private or loopback URL with 400 invalid_vendor_url, storing nothing", async () => {
    for (const url of ["http://prices.example.com", "https://10.1.2.3", "https://127.0.0.1:8443", "https://localhost", "https://user:pw@prices.example.com"]) {
      const res = await create(b.liveEnvironmentId, b.memberToken, { provider: "priceSource", baseAuthUrl: url, clientId: "k", clientSecret: "s" });
      expect(res.status, `${url}: ${res.text}`).toBe(400);
      expect(res.body).toMatchObject({ code: "invalid_vendor_url", payload: { field: "baseAuthUrl" } });
    }
    const rows = await app.db.any("SELECT 1 FROM providers WHERE environment_id = $1 AND provider = 'priceSource'", [b.liveEnvironmentId]);
    expect(rows).toHaveLength(0);
  });

  it("requires the URL, the key id and the secret (400 vendor_credentials_required), on create and on an update that clears one", async () => {
    for (const body of [{ clientId: "k", clientSecret: "s" }, { baseAuthUrl: "https://prices.example.com", clientSecret: "s" }, { baseAuthUrl: "https://prices.example.com", clientId: "k" }]) {
      const res = await create(b.environmentId, b.token, { provider: "rampProvider", ...body });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({ code: "vendor_credentials_required" });
    }
    const own = await vendorOf(a, "priceSource");
    const cleared = await call(app.baseUrl, "PUT", `/settings/providers/${own.id}`, { token: a.token, body: { clientSecret: "" } });
    expect(cleared.status, cleared.text).toBe(400);
    expect(cleared.body).toMatchObject({ code: "vendor_credentials_required" });
    expect(await eurRate(a.environmentId)).toBe(0.9);
  });

  it("over gRPC refuses a live environment's http URL with InvalidArgument", async () => {
    const client = createClient(ProvidersService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const err = await client
      .createProvider({ environmentId: b.liveEnvironmentId, provider: "rampProvider", baseAuthUrl: "http://ramps.example.com", clientId: "k", clientSecret: "s" }, { headers: { authorization: `Bearer ${b.memberToken}` } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.InvalidArgument);
  });
});

describe("at use, an environment's vendor URL the policy refuses", () => {
  it("answers 422 not_configured and sends nothing (a live environment's stored http URL)", async () => {
    // Written through the API, a live environment's http URL is refused; a row from before the rule is not
    // trusted either: the check is made again at every connection.
    const provider = await createVendorRow(b.liveEnvironmentId, "rampProvider", ownRamps.url);
    onTestFinished(async () => void (await app.db.none("DELETE FROM providers WHERE id = $1", [provider])));
    const seen = ownRamps.seen.length;
    const res = await refused(sdkFor(app.baseUrl).getSupportedOnramps({ environmentId: b.liveEnvironmentId, walletAddress: WALLET, chain: "EVM" }));
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body).toMatchObject({ code: "not_configured" });
    expect(ownRamps.seen.length).toBe(seen);
  });

  it("answers 422 not_configured for a live environment's https URL on loopback (a private address)", async () => {
    const provider = await createVendorRow(b.liveEnvironmentId, "priceSource", ownPrices.url.replace("http:", "https:"));
    onTestFinished(async () => void (await app.db.none("DELETE FROM providers WHERE id = $1", [provider])));
    const seen = ownPrices.seen.length;
    const res = await refused(sdkFor(app.baseUrl).getCurrencyExchangeRates({ environmentId: b.liveEnvironmentId }));
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body).toMatchObject({ code: "not_configured" });
    expect(ownPrices.seen.length).toBe(seen);
  });
});

/** A vendor provider row as an earlier version (or a direct write) could have left it, sealed as the service seals. */
async function createVendorRow(environmentId: string, kind: string, url: string): Promise<string> {
  const { clientSecretAad } = await import("../../src/domain/providers/service.js");
  const id = crypto.randomUUID();
  await app.db.none(
    "INSERT INTO providers (id, environment_id, provider, client_id, client_secret_sealed, base_auth_url, enabled_at) VALUES ($1, $2, $3, $4, $5, $6, now())",
    [id, environmentId, kind, OWN_KEY.keyId, app.deps.sealer.seal(OWN_KEY.secret, clientSecretAad(id)), url],
  );
  return id;
}
