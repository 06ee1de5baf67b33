import { describe, expect, it } from "vitest";
import { DEFAULT_SDK_RATE_LIMITS, loadConfig } from "../../src/config.js";
import { DEV_SIGN_IN_RATE_LIMIT_PER_MINUTE, devRoleEnv } from "../../src/dev-defaults.js";

const KEYS = { SIGIL_SEALING_KEYS: `k1:${Buffer.alloc(32, 1).toString("base64")}`, SIGIL_BACKUP_SEALING_KEYS: `b1:${Buffer.alloc(32, 2).toString("base64")}` };
const signInLimit = (env: NodeJS.ProcessEnv) => loadConfig({ ...KEYS, ...env }).sdkRateLimits.signInPerAddressPerMinute;

describe("the dev role's defaults (npm start)", () => {
  it("allows more sign-in calls per address when it listens on loopback and trusts no proxy: every client is this machine", () => {
    expect(signInLimit(devRoleEnv({}))).toBe(DEV_SIGN_IN_RATE_LIMIT_PER_MINUTE);
    expect(signInLimit(devRoleEnv({ HOST: "localhost" }))).toBe(DEV_SIGN_IN_RATE_LIMIT_PER_MINUTE);
    expect(signInLimit(devRoleEnv({ HOST: "::1" }))).toBe(DEV_SIGN_IN_RATE_LIMIT_PER_MINUTE);
    expect(DEV_SIGN_IN_RATE_LIMIT_PER_MINUTE).toBeGreaterThan(DEFAULT_SDK_RATE_LIMITS.signInPerAddressPerMinute);
  });

  it("keeps the production limit when other machines can reach it, directly or through a proxy", () => {
    const production = DEFAULT_SDK_RATE_LIMITS.signInPerAddressPerMinute;
    expect(signInLimit(devRoleEnv({ HOST: "0.0.0.0" }))).toBe(production);
    expect(signInLimit(devRoleEnv({ HOST: "10.1.2.3" }))).toBe(production);
    expect(signInLimit(devRoleEnv({ SIGIL_TRUSTED_PROXIES: "127.0.0.1" }))).toBe(production);
  });

  it("never overrides a limit the operator set", () => {
    expect(signInLimit(devRoleEnv({ SIGIL_SIGN_IN_RATE_LIMIT_PER_MINUTE: "10" }))).toBe(10);
    expect(signInLimit(devRoleEnv({ SIGIL_SIGN_IN_RATE_LIMIT_PER_MINUTE: "0" }))).toBe(0);
  });

  it("leaves the production roles' settings alone", () => {
    expect(signInLimit({})).toBe(DEFAULT_SDK_RATE_LIMITS.signInPerAddressPerMinute);
  });
});
