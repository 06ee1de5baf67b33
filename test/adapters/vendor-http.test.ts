import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPriceSource } from "../../src/adapters/price-source.js";
import { canonicalQuery, signedUrl } from "../../src/adapters/vendor-signing.js";
import { DEFAULT_RAMP_SETTINGS } from "../../src/config-ramps.js";
import { DEFAULT_WEBHOOK_SETTINGS } from "../../src/config.js";
import type { VendorEndpoint } from "../../src/domain/vendors/port.js";
import { DomainError } from "../../src/errors.js";

/** The bounds of a vendor call (a price source here): size, JSON, status; and the signing scheme's canonical form. */
let server: Server;
let url = "";
let answer: { status: number; body: string } = { status: 200, body: "{}" };
beforeAll(async () => {
  server = createServer((_req, res) => {
    hits++;
    res.writeHead(answer.status, { "content-type": "application/json" }).end(answer.body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

let hits = 0;
const operator = (): VendorEndpoint => ({ url, keyId: "k", secret: "s", trusted: true, environmentName: "live" });
const source = (endpoint = operator(), webhooks = DEFAULT_WEBHOOK_SETTINGS) => createPriceSource(endpoint, { ...DEFAULT_RAMP_SETTINGS, maxResponseBytes: 1024 }, webhooks);
const failure = (p: Promise<unknown>) => p.then(() => { throw new Error("it succeeded"); }, (e: unknown) => e as DomainError);

describe("vendor calls", () => {
  it("answers 503 provider_unavailable for an answer past the size bound, one that is not JSON, and a 4xx of the vendor's own", async () => {
    answer = { status: 200, body: JSON.stringify({ rates: { EUR: "0.9" }, pad: "x".repeat(2000) }) };
    expect(await failure(source().rates("USD"))).toMatchObject({ code: "provider_unavailable", kind: "unavailable" });
    answer = { status: 200, body: "<html>" };
    expect((await failure(source().rates("USD"))).message).toMatch(/not JSON/);
    answer = { status: 404, body: "{}" };
    expect((await failure(source().rates("USD"))).message).toMatch(/HTTP 404/);
    answer = { status: 401, body: '{"error":"bad signature"}' };
    expect(await failure(source().rates("USD"))).toMatchObject({ code: "provider_unavailable", message: expect.stringMatching(/refused Sigil's signature/) });
  });

  it("keeps only the positive decimals a source sent, never a guessed value", async () => {
    answer = { status: 200, body: JSON.stringify({ rates: { EUR: "0.91", GBP: 0.78, JPY: "n/a", CHF: "-1", ZAR: "0" } }) };
    expect(await source().rates("USD")).toEqual({ EUR: 0.91, GBP: 0.78 });
  });
});

describe("an environment's own vendor URL", () => {
  it("is reached under the destination policy: a live environment's http or loopback URL is 422 not_configured, nothing sent; the operator's is trusted", async () => {
    answer = { status: 200, body: JSON.stringify({ rates: { EUR: "0.9" } }) };
    const before = hits;
    const own = (environmentName: "live" | "sandbox", base = url): VendorEndpoint => ({ ...operator(), trusted: false, environmentName, url: base });
    expect(await failure(source(own("live")).rates("USD"))).toMatchObject({ code: "not_configured", message: expect.stringMatching(/must use https/) });
    expect(await failure(source(own("live", url.replace("http:", "https:"))).rates("USD"))).toMatchObject({ code: "not_configured", message: expect.stringMatching(/refused/) });
    // A sandbox reaches loopback only while SIGIL_WEBHOOK_SANDBOX_LOOPBACK allows it.
    expect(await failure(source(own("sandbox"), { ...DEFAULT_WEBHOOK_SETTINGS, sandboxLoopback: false }).rates("USD"))).toMatchObject({ code: "not_configured" });
    expect(hits).toBe(before);
    expect(await source(own("sandbox"), { ...DEFAULT_WEBHOOK_SETTINGS, sandboxLoopback: true }).rates("USD")).toEqual({ EUR: 0.9 });
    expect(await source().rates("USD")).toEqual({ EUR: 0.9 });
  });
});

describe("the signing scheme's canonical query", () => {
  it("sorts by name then value and encodes as RFC 3986 says", () => {
    expect(canonicalQuery(new URLSearchParams("b=2&a=z&a=y&c=it's (ok)*"))).toBe("a=y&a=z&b=2&c=it%27s%20%28ok%29%2A");
  });

  it("signs a URL's own parameters too, and puts the signature last", () => {
    const signed = new URL(signedUrl({ keyId: "k", secret: "s" }, "https://ramp.example/buy?flow=card", { walletAddress: "0xab" }, 1_700_000_000));
    expect([...signed.searchParams.keys()]).toEqual(["flow", "keyId", "timestamp", "walletAddress", "signature"]);
    expect(signed.searchParams.get("signature")).toMatch(/^[0-9a-f]{64}$/);
  });
});
