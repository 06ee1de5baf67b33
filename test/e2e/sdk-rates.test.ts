import { createClient, Code, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ChainEnum, type SDKApi } from "@dynamic-labs/sdk-api";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { DEFAULT_CHAIN_SETTINGS } from "../../src/config-chains.js";
import { DEFAULT_RAMP_SETTINGS } from "../../src/config-ramps.js";
import { requestSignatureHeaders } from "../../src/adapters/vendor-signing.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkRatesService } from "../../src/gen/sigil/rates/v0/sdk_rates_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { startEvmChain, type EvmChain } from "./support/evm-chain.js";
import { startPricePeer, type PricePeer } from "./support/price-peer.js";
import { PEER_KEY_ID, PEER_SECRET } from "./support/vendor-peer.js";

/**
 * GET /sdk/{environmentId}/exchangeRates (the published client's SDKApi.getCurrencyExchangeRates) and the
 * fiat fields of balances, against a loopback price source that checks what Sigil signs. One app without a
 * price source (the configured table, no fiat fields), one with the peer.
 */

let plain: TestApp;
let live: TestApp;
let peer: PricePeer;
let evm: EvmChain;
let plainTenant: BootstrapResult;
let liveTenant: BootstrapResult;
const NATIVE = "0x0000000000000000000000000000000000000000";

beforeAll(async () => {
  [peer, evm] = await Promise.all([startPricePeer(), startEvmChain()]);
  const chains = { ...DEFAULT_CHAIN_SETTINGS, evmRpcUrls: { 31337: evm.rpcUrl } };
  [plain, live] = await Promise.all([
    startTestApp({ chains }, { dispatcher: false }),
    startTestApp({ chains, ramps: { ...DEFAULT_RAMP_SETTINGS, timeoutMs: 1500, priceSource: { url: peer.url, keyId: PEER_KEY_ID, secret: PEER_SECRET } } }, { dispatcher: false }),
  ]);
  [plainTenant, liveTenant] = await Promise.all([plain.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` }), live.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` })]);
}, 90_000);
afterAll(async () => {
  await Promise.all([plain?.stop(), live?.stop()]);
  await Promise.all([peer?.close(), evm?.close()]);
});

describe("the price source peer", () => {
  it("refuses a request signed with another secret, and one whose timestamp is stale", async () => {
    const url = new URL(`${peer.url}/v1/rates?base=USD`);
    const send = (headers: Record<string, string>) => fetch(url, { headers });
    expect((await send(requestSignatureHeaders({ keyId: PEER_KEY_ID, secret: PEER_SECRET }, { method: "GET", url, body: "" }))).status).toBe(200);
    expect((await send(requestSignatureHeaders({ keyId: PEER_KEY_ID, secret: "not-the-secret" }, { method: "GET", url, body: "" }))).status).toBe(401);
    const stale = Math.floor(Date.now() / 1000) - 3600;
    expect((await send(requestSignatureHeaders({ keyId: PEER_KEY_ID, secret: PEER_SECRET }, { method: "GET", url, body: "" }, stale))).status).toBe(401);
  });
});

describe("getCurrencyExchangeRates", () => {
  it("without a price source answers the configured table, as the management read does", async () => {
    const rates = await sdkFor(plain.baseUrl).getCurrencyExchangeRates({ environmentId: plainTenant.environmentId });
    expect(rates).toContainEqual({ name: "Ether", symbol: "ETH", type: "crypto", code: "USD", value: 3000 });
    expect(rates).toContainEqual({ name: "US Dollar", symbol: "USD", type: "fiat", code: "EUR", value: 0.92 });
  });

  it("answers 503 provider_unavailable with the source's Retry-After when it is down, and after its deadline when it is silent", async () => {
    const sdk = sdkFor(live.baseUrl);
    peer.mode = "down";
    onTestFinished(() => void (peer.mode = "ok"));
    const down = await refused(sdk.getCurrencyExchangeRates({ environmentId: liveTenant.environmentId }));
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ code: "provider_unavailable" });
    expect(down.headers.get("retry-after"), JSON.stringify(down.body)).toBe("7");
    peer.mode = "silent";
    const silent = await refused(sdk.getCurrencyExchangeRates({ environmentId: liveTenant.environmentId }));
    expect(silent.status).toBe(503);
    expect(silent.body.error).toMatch(/no answer within 1500 ms/);
    expect(silent.headers.get("retry-after")).toBe("5");
    peer.mode = "ok";
  });

  it("with a price source answers only its live values: fiat rates from USD and the table's crypto currencies it prices", async () => {
    peer.rates = { EUR: "0.91", GBP: "0.78", USD: "1", "bad code": "2", JPY: "not a number" };
    peer.prices = { ETH: "3012.5", BTC: "95000.25" };
    const before = peer.seen.length;
    const rates = await sdkFor(live.baseUrl).getCurrencyExchangeRates({ environmentId: liveTenant.environmentId });
    expect(rates).toEqual([
      { name: "US Dollar", symbol: "USD", type: "fiat", code: "EUR", value: 0.91 },
      { name: "US Dollar", symbol: "USD", type: "fiat", code: "GBP", value: 0.78 },
      { name: "Bitcoin", symbol: "BTC", type: "crypto", code: "USD", value: 95000.25 },
      { name: "Ether", symbol: "ETH", type: "crypto", code: "USD", value: 3012.5 },
    ]);
    // Signed as the protocol says (the peer refused nothing), and the prices asked were the table's crypto symbols.
    const calls = peer.seen.slice(before);
    expect(calls.map((c) => c.refusal)).toEqual([null, null]);
    expect(calls.find((c) => c.url.pathname === "/v1/prices")!.url.searchParams.get("ids")!.split(",").sort()).toEqual(["BTC", "DAI", "ETH", "SOL", "USDC", "USDT"]);
    // Cached: a second read does not ask the source again.
    await sdkFor(live.baseUrl).getCurrencyExchangeRates({ environmentId: liveTenant.environmentId });
    expect(peer.seen.length).toBe(before + 2);
  });

  it("answers exactly the client's Currency fields, in its order: none of the management read's source and updatedAt", async () => {
    // The SDK read and the management GET /exchangeRates share one proto message; the SDK's leaves those two unset.
    const res = await call(plain.baseUrl, "GET", `/sdk/${plainTenant.environmentId}/exchangeRates`);
    expect(res.status, res.text).toBe(200);
    const eth = res.body.find((r: { symbol: string }) => r.symbol === "ETH");
    expect(res.text).toContain(JSON.stringify({ name: "Ether", symbol: "ETH", type: "crypto", code: "USD", value: 3000 }));
    expect(res.body.every((r: object) => Object.keys(r).join() === "name,symbol,type,code,value"), res.text).toBe(true);
    const grpc = createClient(SdkRatesService, createGrpcTransport({ baseUrl: plain.baseUrl }));
    const viaGrpc = (await grpc.getCurrencyExchangeRates({ environmentId: plainTenant.environmentId })).exchangeRates.find((r) => r.symbol === "ETH")!;
    expect({ ...viaGrpc, $typeName: undefined }).toMatchObject({ ...eth });
    expect(Object.entries(viaGrpc).filter(([k, v]) => !(k in eth) && k !== "$typeName" && v !== undefined && v !== "")).toEqual([]);
  });

  it("answers 400 for an environment id that is not a UUID", async () => {
    const bad = await refused(sdkFor(live.baseUrl).getCurrencyExchangeRates({ environmentId: "not-a-uuid" }));
    expect(bad.status).toBe(400);
  });

  it("over gRPC answers the same rates", async () => {
    const client = createClient(SdkRatesService, createGrpcTransport({ baseUrl: live.baseUrl }));
    const res = await client.getCurrencyExchangeRates({ environmentId: liveTenant.environmentId });
    expect(res.exchangeRates.map((r) => [r.symbol, r.code, r.value])).toContainEqual(["ETH", "USD", 3012.5]);
    const plainClient = createClient(SdkRatesService, createGrpcTransport({ baseUrl: plain.baseUrl }));
    expect((await plainClient.getCurrencyExchangeRates({ environmentId: plainTenant.environmentId })).exchangeRates.length).toBeGreaterThan(3);
  });
});

describe("fiat values in balances", () => {
  const read = (sdk: SDKApi, environmentId: string, holder: string) =>
    sdk.getAccountBalances({ environmentId, chainName: ChainEnum.Evm, accountAddress: holder, networkId: 31337, whitelistedContracts: [evm.contracts.erc20] });

  it("fills price and marketValue from the price source for the tokens it prices, and leaves the others without", async () => {
    const holder = privateKeyToAddress(generatePrivateKey());
    await evm.transferNative(holder, 2n * 10n ** 18n);
    await evm.mintErc20(holder, 10n * 10n ** 18n);
    peer.prices = { [`EVM:31337:${NATIVE}`]: "2000.5" };
    const balances = await read(sdkFor(live.baseUrl), liveTenant.environmentId, holder);
    expect(balances[0]).toMatchObject({ address: NATIVE, balance: 2, price: 2000.5, marketValue: 4001 });
    expect(balances[1]).toMatchObject({ address: evm.contracts.erc20, balance: 10 });
    expect(balances[1]!.price).toBeUndefined();
    expect(balances[1]!.marketValue).toBeUndefined();
  });

  it("without a price source, or when it is down, the balances come without fiat fields (never 0)", async () => {
    const holder = privateKeyToAddress(generatePrivateKey());
    await evm.transferNative(holder, 10n ** 18n);
    const withoutSource = await read(sdkFor(plain.baseUrl), plainTenant.environmentId, holder);
    expect(withoutSource[0]).toMatchObject({ balance: 1 });
    expect(withoutSource[0]!.price).toBeUndefined();
    peer.mode = "down";
    try {
      const other = privateKeyToAddress(generatePrivateKey());
      await evm.transferNative(other, 10n ** 18n);
      // A token id not asked before, so its price is not cached: the source is asked and fails.
      const sourceDown = await read(sdkFor(live.baseUrl), liveTenant.environmentId, other);
      expect(sourceDown[0]).toMatchObject({ balance: 1 });
      expect(sourceDown[0]!.price === undefined || sourceDown[0]!.price === 2000.5).toBe(true);
    } finally {
      peer.mode = "ok";
    }
  });
});
