import { generateKeyPairSync } from "node:crypto";
import { decodeProtectedHeader, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { signCompactJws, type JwsAlg } from "../../src/crypto/jws.js";

const pairs: Record<JwsAlg, ReturnType<typeof generateKeyPairSync>> = {
  ES256: generateKeyPairSync("ec", { namedCurve: "P-256" }),
  RS256: generateKeyPairSync("rsa", { modulusLength: 2048 }),
};

describe("signCompactJws", () => {
  for (const alg of ["ES256", "RS256"] as const) {
    it(`makes ${alg} tokens that jose verifies, with the header and claims as given`, async () => {
      const { privateKey, publicKey } = pairs[alg];
      const claims = { sub: "user", sid: "session", nested: { list: [1, "two"] }, text: "é ✓", exp: Math.floor(Date.now() / 1000) + 60 };
      const token = await signCompactJws({ alg, kid: "k1", typ: "JWT" }, claims, privateKey);
      expect(decodeProtectedHeader(token)).toEqual({ alg, kid: "k1", typ: "JWT" });
      const { payload } = await jwtVerify(token, publicKey, { algorithms: [alg] });
      expect(payload).toEqual(claims);
    });
  }

  it("makes tokens that fail verification once a byte of the payload changes, or with another key", async () => {
    const token = await signCompactJws({ alg: "ES256", kid: "k1", typ: "JWT" }, { sub: "a" }, pairs.ES256.privateKey);
    const [h, p, s] = token.split(".");
    const tampered = `${h}.${Buffer.from(JSON.stringify({ sub: "b" })).toString("base64url")}.${s}`;
    await expect(jwtVerify(tampered, pairs.ES256.publicKey)).rejects.toThrow();
    await expect(jwtVerify(`${h}.${p}.${s}`, generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey)).rejects.toThrow();
  });
});
