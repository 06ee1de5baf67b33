import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";

/** SIGIL_PRICE_SOURCE_* / SIGIL_RAMP_PROVIDER_* and the bounds of every vendor call, read once at start. */
describe("ramp settings", () => {
  const env = (extra: Record<string, string>) => ({ SIGIL_SEALING_KEYS: `k:${Buffer.alloc(32).toString("base64")}`, SIGIL_BACKUP_SEALING_KEYS: `b:${Buffer.alloc(32, 1).toString("base64")}`, ...extra });

  it("has no vendor by default, and reads each vendor's URL, key id and secret", () => {
    expect(loadConfig(env({})).ramps).toEqual({ priceSource: null, rampProvider: null, timeoutMs: 5000, maxResponseBytes: 256 * 1024 });
    const config = loadConfig(env({
      SIGIL_PRICE_SOURCE_URL: "https://prices.example/", SIGIL_PRICE_SOURCE_KEY_ID: "k1", SIGIL_PRICE_SOURCE_SECRET: "s1",
      SIGIL_RAMP_PROVIDER_URL: "http://127.0.0.1:9100", SIGIL_RAMP_PROVIDER_KEY_ID: "k2", SIGIL_RAMP_PROVIDER_SECRET: "s2", SIGIL_VENDOR_TIMEOUT_MS: "2000",
    }));
    expect(config.ramps).toMatchObject({
      priceSource: { url: "https://prices.example", keyId: "k1", secret: "s1" },
      rampProvider: { url: "http://127.0.0.1:9100", keyId: "k2", secret: "s2" },
      timeoutMs: 2000,
    });
  });

  it("refuses a vendor URL without its key id and secret (nothing is sent unsigned), or one that is not http(s)", () => {
    expect(() => loadConfig(env({ SIGIL_RAMP_PROVIDER_URL: "https://ramp.example" }))).toThrow(/SIGIL_RAMP_PROVIDER_KEY_ID and SIGIL_RAMP_PROVIDER_SECRET are required/);
    expect(() => loadConfig(env({ SIGIL_PRICE_SOURCE_URL: "ftp://prices.example", SIGIL_PRICE_SOURCE_KEY_ID: "k", SIGIL_PRICE_SOURCE_SECRET: "s" }))).toThrow(/SIGIL_PRICE_SOURCE_URL must be an http or https URL/);
  });
});
