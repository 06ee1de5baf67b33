import { describe, expect, it } from "vitest";
import { DEFAULT_SESSION_MAX_AGE_SECONDS, loadConfig } from "../../../src/config.js";

describe("SIGIL_SESSION_MAX_AGE_SECONDS", () => {
  // A sealing key given, so that loading the config writes no key file.
  const base = { SIGIL_SEALING_KEYS: `k1:${Buffer.alloc(32, 1).toString("base64")}`, SIGIL_BACKUP_SEALING_KEYS: `b1:${Buffer.alloc(32, 2).toString("base64")}` };

  it("defaults to 30 days, reads seconds, and refuses less than a minute or a non-number", () => {
    expect(DEFAULT_SESSION_MAX_AGE_SECONDS).toBe(30 * 24 * 3600);
    expect(loadConfig(base).sessionMaxAgeSeconds).toBe(DEFAULT_SESSION_MAX_AGE_SECONDS);
    expect(loadConfig({ ...base, SIGIL_SESSION_MAX_AGE_SECONDS: "86400" }).sessionMaxAgeSeconds).toBe(86_400);
    expect(() => loadConfig({ ...base, SIGIL_SESSION_MAX_AGE_SECONDS: "59" })).toThrow(/SIGIL_SESSION_MAX_AGE_SECONDS/);
    expect(() => loadConfig({ ...base, SIGIL_SESSION_MAX_AGE_SECONDS: "a month" })).toThrow(/SIGIL_SESSION_MAX_AGE_SECONDS/);
  });
});
