import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createChainNodes } from "../../src/adapters/chain-nodes.js";
import { DEFAULT_CHAIN_SETTINGS } from "../../src/config-chains.js";
import { DEFAULT_WEBHOOK_SETTINGS } from "../../src/config.js";

/** The bounds of every node call, against loopback peers that misbehave (the real nodes are in test/e2e). */
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(null)));
  server = undefined;
});

async function peer(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const settings = { ...DEFAULT_CHAIN_SETTINGS, timeoutMs: 300 };
const nodes = createChainNodes(settings, DEFAULT_WEBHOOK_SETTINGS);
const owner = "0x52908400098527886E0F7030069857D2E4169EE7";

describe("chain node calls", () => {
  it("a node that never answers is chain_unavailable (503, Retry-After) at the deadline, not a hang", async () => {
    const url = await peer(() => {});
    const started = Date.now();
    const err = await nodes.evm({ url, trusted: true, environmentName: "sandbox" }).nativeBalance(owner).catch((e) => e);
    expect(err).toMatchObject({ kind: "unavailable", code: "chain_unavailable", payload: { retryAfterSeconds: 5 } });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("a JSON-RPC error or an HTTP 500 is chain_unavailable, never a made-up value", async () => {
    const url = await peer((req, res) => {
      if (req.url === "/500") return res.writeHead(500).end("oops");
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: 0, error: { code: -32000, message: "header not found" } }));
    });
    await expect(nodes.evm({ url, trusted: true, environmentName: "sandbox" }).nativeBalance(owner)).rejects.toMatchObject({ code: "chain_unavailable" });
    await expect(nodes.solana({ url: `${url}/500`, trusted: true, environmentName: "sandbox" }).lamports("11111111111111111111111111111111")).rejects.toMatchObject({ code: "chain_unavailable" });
  });

  it("a tenant's URL obeys the destination policy: loopback refused for live (not_configured), nothing sent", async () => {
    let asked = 0;
    const url = await peer((_req, res) => void (asked++, res.end()));
    expect(() => nodes.evm({ url, trusted: false, environmentName: "live" })).toThrow(expect.objectContaining({ code: "not_configured" }));
    const https = url.replace("http:", "https:");
    await expect(nodes.evm({ url: https, trusted: false, environmentName: "live" }).nativeBalance(owner)).rejects.toMatchObject({ code: "not_configured" });
    expect(asked).toBe(0);
  });
});
