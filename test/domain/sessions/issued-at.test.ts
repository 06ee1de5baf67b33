import { generateKeyPairSync } from "node:crypto";
import { decodeJwt } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Config } from "../../../src/config.js";
import type { SignedInUserRecord } from "../../../src/db/repositories/user-aggregate.js";
import type { Keyring, TokenPolicy } from "../../../src/domain/sessions/keyring.js";
import { sessionToOpen, signOpenedSession } from "../../../src/domain/sessions/service.js";

afterEach(() => vi.useRealTimers());

/** A keyring that only signs (ES256, a fresh key): what signing a session's tokens asks of it. */
const key = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
const sessionKeys = { signingKey: async () => ({ kid: "k", alg: "ES256", key }) } as unknown as Keyring;
const user = { user: { id: "3f1c2a4e-0000-4000-8000-000000000001", environmentId: "3f1c2a4e-0000-4000-8000-000000000002" }, credentials: [], wallets: [], mfaDevices: [] } as unknown as SignedInUserRecord;

describe("a sign-in's tokens", () => {
  it("last exactly the environment's lifetime, also when a second passes between opening the session and signing", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(1_800_000_000_990)); // 10 ms before a second turns
    const policy = { lifetimeSeconds: 5400, collected: new Set<string>() } as unknown as TokenPolicy;
    const opened = sessionToOpen({ config: { sessionMaxAgeSeconds: 30 * 86400 } as Config }, policy, { ipAddress: null, userAgent: null, requestId: "r" }, "user", {
      secondFactorPending: false,
      firstFactor: { kind: "email", id: null },
    });
    vi.setSystemTime(new Date(1_800_000_001_020)); // the session was stored meanwhile: the next second
    const { jwt, minifiedJwt } = await signOpenedSession({ sessionKeys }, user, opened);
    for (const token of [jwt, minifiedJwt]) {
      const claims = decodeJwt(token);
      expect(claims.iat).toBe(1_800_000_000);
      expect(claims.exp! - claims.iat!).toBe(5400);
    }
  });
});
