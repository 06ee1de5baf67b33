import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";

/** SIGIL_EVM_RPC_URLS / SIGIL_SOLANA_RPC_URLS and the bounds of every chain call, read once at start. */
describe("chain settings", () => {
  const env = (extra: Record<string, string>) => ({ SIGIL_SEALING_KEYS: `k:${Buffer.alloc(32).toString("base64")}`, SIGIL_BACKUP_SEALING_KEYS: `b:${Buffer.alloc(32, 1).toString("base64")}`, ...extra });

  it("reads the operator's default node per chain id, and the defaults of the bounds", () => {
    const config = loadConfig(env({ SIGIL_EVM_RPC_URLS: '{"1":"https://eth.example","31337":"http://127.0.0.1:8545"}', SIGIL_SOLANA_RPC_URLS: '{"103":"https://devnet.example"}' }));
    expect(config.chains).toEqual({
      evmRpcUrls: { 1: "https://eth.example", 31337: "http://127.0.0.1:8545" },
      solanaRpcUrls: { 103: "https://devnet.example" },
      timeoutMs: 5000,
      maxResponseBytes: 2 * 1024 * 1024,
      multicallBatchBytes: 4096,
    });
  });

  it("refuses a value that is not a JSON object of positive chain ids to http(s) URLs, naming the variable", () => {
    expect(() => loadConfig(env({ SIGIL_EVM_RPC_URLS: "https://eth.example" }))).toThrow(/SIGIL_EVM_RPC_URLS must be a JSON object/);
    expect(() => loadConfig(env({ SIGIL_EVM_RPC_URLS: '{"mainnet":"https://eth.example"}' }))).toThrow(/SIGIL_EVM_RPC_URLS: "mainnet" is not a positive integer/);
    expect(() => loadConfig(env({ SIGIL_SOLANA_RPC_URLS: '{"101":"ftp://x"}' }))).toThrow(/SIGIL_SOLANA_RPC_URLS: the URL of 101/);
  });
});
