import { createHash, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { CompactEncrypt, compactDecrypt, importJWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { keyIdFor, parseRsaPublicKey } from "../../src/crypto/rsa-public-key.js";
import { DomainError } from "../../src/errors.js";

let publicKey: KeyObject;
let privateKey: KeyObject;
let spkiPem: string;
let pkcs1Pem: string;
let jwkJson: string;

beforeAll(() => {
  ({ publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 }));
  spkiPem = publicKey.export({ type: "spki", format: "pem" }).toString();
  pkcs1Pem = publicKey.export({ type: "pkcs1", format: "pem" }).toString();
  jwkJson = JSON.stringify(publicKey.export({ format: "jwk" }));
});

function invalidKeyError(input: string): DomainError {
  try {
    parseRsaPublicKey(input);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).kind).toBe("bad_request");
    expect((err as DomainError).code).toBe("invalid_public_key");
    return err as DomainError;
  }
  throw new Error("expected parseRsaPublicKey to throw");
}

describe("parseRsaPublicKey", () => {
  it("parses an SPKI PEM", () => {
    const parsed = parseRsaPublicKey(spkiPem);
    expect(parsed.modulusBits).toBe(2048);
    expect(parsed.spkiPem).toBe(spkiPem);
    expect(parsed.jwk).toEqual({ kty: "RSA", n: expect.any(String), e: "AQAB" });
  });

  it("gives the same SPKI PEM and JWK for PKCS#1 PEM, JWK and SPKI input of the same key", () => {
    const fromSpki = parseRsaPublicKey(spkiPem);
    expect(pkcs1Pem).toContain("BEGIN RSA PUBLIC KEY");
    expect(parseRsaPublicKey(pkcs1Pem)).toEqual(fromSpki);
    expect(parseRsaPublicKey(jwkJson)).toEqual(fromSpki);
    // Surrounding whitespace, as pasted from a file, is fine.
    expect(parseRsaPublicKey(`\n  ${spkiPem}\n\n`)).toEqual(fromSpki);
  });

  it("keeps only the key members of a JWK, dropping metadata", () => {
    const withMetadata = JSON.stringify({ ...JSON.parse(jwkJson), alg: "RSA-OAEP-256", use: "enc", kid: "x" });
    expect(Object.keys(parseRsaPublicKey(withMetadata).jwk).sort()).toEqual(["e", "kty", "n"]);
  });

  it("returns a key that jose can encrypt to (RSA-OAEP-256 / A256GCM) and the private key decrypts", async () => {
    const parsed = parseRsaPublicKey(pkcs1Pem);
    const message = "delegated access payload";
    // Both outputs must be usable: the JWK (as a client library would import it) and the SPKI PEM.
    for (const key of [await importJWK(parsed.jwk, "RSA-OAEP-256"), createPublicKey(parsed.spkiPem)]) {
      const jwe = await new CompactEncrypt(new TextEncoder().encode(message))
        .setProtectedHeader({ alg: "RSA-OAEP-256", enc: "A256GCM" })
        .encrypt(key);
      const { plaintext, protectedHeader } = await compactDecrypt(jwe, privateKey);
      expect(new TextDecoder().decode(plaintext)).toBe(message);
      expect(protectedHeader).toMatchObject({ alg: "RSA-OAEP-256", enc: "A256GCM" });
    }
  });

  it("accepts larger RSA keys and reports their size", () => {
    const { publicKey: big } = generateKeyPairSync("rsa", { modulusLength: 3072 });
    expect(parseRsaPublicKey(big.export({ type: "spki", format: "pem" }).toString()).modulusBits).toBe(3072);
  });

  it("rejects RSA keys under 2048 bits", () => {
    const { publicKey: weak } = generateKeyPairSync("rsa", { modulusLength: 1024 });
    expect(invalidKeyError(weak.export({ type: "spki", format: "pem" }).toString()).message).toMatch(/2048/);
    expect(invalidKeyError(JSON.stringify(weak.export({ format: "jwk" }))).message).toMatch(/2048/);
  });

  it("rejects EC keys, as PEM and as JWK", () => {
    const { publicKey: ec } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    invalidKeyError(ec.export({ type: "spki", format: "pem" }).toString());
    invalidKeyError(JSON.stringify(ec.export({ format: "jwk" })));
  });

  it("rejects RSA-PSS keys, which cannot encrypt", () => {
    const { publicKey: pss } = generateKeyPairSync("rsa-pss", { modulusLength: 2048 });
    invalidKeyError(pss.export({ type: "spki", format: "pem" }).toString());
  });

  it("rejects private keys in every form instead of deriving their public half", () => {
    invalidKeyError(privateKey.export({ type: "pkcs8", format: "pem" }).toString());
    invalidKeyError(privateKey.export({ type: "pkcs1", format: "pem" }).toString());
    expect(invalidKeyError(JSON.stringify(privateKey.export({ format: "jwk" }))).message).toMatch(/private/);
    // A public key with a private key pasted after it is not one public key.
    invalidKeyError(`${spkiPem}${privateKey.export({ type: "pkcs8", format: "pem" }).toString()}`);
  });

  it.each([
    ["empty", ""],
    ["garbage", "not a key"],
    ["malformed JSON", "{"],
    ["a JSON array", "[]"],
    ["a JWK without kty RSA", '{"kty":"oct","k":"AAAA"}'],
    ["an RSA JWK with a non-string modulus", '{"kty":"RSA","n":1,"e":"AQAB"}'],
    ["an RSA JWK with garbage members", '{"kty":"RSA","n":"!!","e":"AQAB"}'],
    ["a PEM whose body is not a key", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"],
    ["a PEM with mismatched armour", "-----BEGIN RSA PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"],
    ["a certificate", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"],
  ])("rejects %s", (_, input) => {
    invalidKeyError(input);
  });

  it("rejects a PEM whose base64 was corrupted", () => {
    const lines = spkiPem.trim().split("\n");
    lines[3] = lines[3].slice(0, 10) + lines[3].slice(20);
    invalidKeyError(lines.join("\n"));
  });

  it("rejects an RSA JWK with public exponent 1", () => {
    invalidKeyError(JSON.stringify({ ...JSON.parse(jwkJson), e: "AQ" }));
  });
});

describe("keyIdFor", () => {
  it("is the RFC 7638 thumbprint: base64url SHA-256 of the canonical {e,kty,n} JSON", async () => {
    const { jwk } = parseRsaPublicKey(spkiPem);
    const canonical = `{"e":"${jwk.e}","kty":"RSA","n":"${jwk.n}"}`;
    const expected = createHash("sha256").update(canonical).digest("base64url");
    const kid = await keyIdFor(parseRsaPublicKey(spkiPem).spkiPem);
    expect(kid).toBe(expected);
    expect(kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("is the same for the same key whatever form it came in, and differs between keys", async () => {
    const kids = await Promise.all([spkiPem, pkcs1Pem, jwkJson].map((input) => keyIdFor(parseRsaPublicKey(input).spkiPem)));
    expect(new Set(kids).size).toBe(1);
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ type: "spki", format: "pem" });
    expect(await keyIdFor(other.toString())).not.toBe(kids[0]);
  });

  it("rejects input that is not a PEM public key", async () => {
    await expect(keyIdFor("nope")).rejects.toMatchObject({ code: "invalid_public_key" });
  });
});
