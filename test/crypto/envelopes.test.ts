import { constants, createDecipheriv, generateKeyPairSync, privateDecrypt, randomBytes } from "node:crypto";
import { base64urlnopad } from "@scure/base";
import { compactDecrypt, decodeProtectedHeader, exportJWK, generateKeyPair, type JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { EnvelopeError, encryptForExport, openHybridRsaAes256, sealHybridRsaAes256, type HybridEnvelope } from "../../src/crypto/envelopes.js";
import { DomainError } from "../../src/errors.js";

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const bytes = (s: string) => new TextEncoder().encode(s);

describe("encryptForExport", () => {
  it("is a JWE compact (ECDH-ES, A256GCM) that the client's private key opens with jose", async () => {
    const { publicKey, privateKey } = await generateKeyPair("ECDH-ES", { crv: "P-256", extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: "export-1" };
    const jwe = await encryptForExport(jwk, bytes("the exported key"));
    expect(decodeProtectedHeader(jwe)).toMatchObject({ alg: "ECDH-ES", enc: "A256GCM", kid: "export-1" });
    const { plaintext } = await compactDecrypt(jwe, privateKey);
    expect(text(plaintext)).toBe("the exported key");
  });

  it("gives a different ciphertext each time (an ephemeral key per encryption)", async () => {
    const { publicKey } = await generateKeyPair("ECDH-ES", { crv: "P-256", extractable: true });
    const jwk = await exportJWK(publicKey);
    expect(await encryptForExport(jwk, bytes("x"))).not.toBe(await encryptForExport(jwk, bytes("x")));
  });

  it("does not open with another key, nor once tampered with", async () => {
    const a = await generateKeyPair("ECDH-ES", { crv: "P-256", extractable: true });
    const b = await generateKeyPair("ECDH-ES", { crv: "P-256", extractable: true });
    const jwe = await encryptForExport(await exportJWK(a.publicKey), bytes("secret"));
    await expect(compactDecrypt(jwe, b.privateKey)).rejects.toThrow();
    const parts = jwe.split(".");
    const flipped = (s: string) => (s[0] === "A" ? "B" : "A") + s.slice(1);
    await expect(compactDecrypt([parts[0], parts[1], parts[2], flipped(parts[3]!), parts[4]].join("."), a.privateKey)).rejects.toThrow();
    await expect(compactDecrypt([parts[0], parts[1], parts[2], parts[3], flipped(parts[4]!)].join("."), a.privateKey)).rejects.toThrow();
  });

  async function refused(jwk: unknown): Promise<DomainError> {
    const err = await encryptForExport(jwk as JWK, bytes("x")).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).kind).toBe("bad_request");
    expect((err as DomainError).code).toBe("invalid_export_key");
    return err as DomainError;
  }

  it("refuses every key that is not an EC P-256 public key, with a 400 invalid_export_key", async () => {
    const p256 = await exportJWK((await generateKeyPair("ECDH-ES", { crv: "P-256", extractable: true })).publicKey);
    const p384 = await exportJWK((await generateKeyPair("ECDH-ES", { crv: "P-384", extractable: true })).publicKey);
    const x25519 = await exportJWK((await generateKeyPair("ECDH-ES", { crv: "X25519", extractable: true })).publicKey);
    const rsa = await exportJWK((await generateKeyPair("RSA-OAEP-256", { extractable: true })).publicKey);
    const priv = await exportJWK((await generateKeyPair("ECDH-ES", { crv: "P-256", extractable: true })).privateKey);
    expect((await refused(p384)).message).toMatch(/crv must be P-256/);
    expect((await refused(x25519)).message).toMatch(/kty must be EC/);
    expect((await refused(rsa)).message).toMatch(/kty must be EC/);
    expect((await refused(priv)).message).toMatch(/private key/);
    expect((await refused({ kty: "oct", k: "AAAA" })).message).toMatch(/kty must be EC/);
    await refused(null);
    await refused({ kty: "EC", crv: "P-256", x: p256.x });
    await refused({ ...p256, use: "sig" });
    // A point that is not on the curve (an invalid-curve attack on ECDH).
    await refused({ ...p256, y: p256.x });
  });
});

describe("HYBRID-RSA-AES-256", () => {
  let publicPem: string;
  let privatePem: string;
  beforeAll(() => {
    const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    publicPem = publicKey.export({ type: "spki", format: "pem" }).toString();
    privatePem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  });

  it("has the spec's fields and opens with plain node:crypto (RSA-OAEP-256 then AES-256-GCM)", () => {
    const share = randomBytes(96);
    const env = sealHybridRsaAes256(publicPem, "kid-1", share);
    expect(Object.keys(env).sort()).toEqual(["alg", "ct", "ek", "iv", "kid", "tag"]);
    expect(env).toMatchObject({ alg: "HYBRID-RSA-AES-256", kid: "kid-1" });
    for (const f of [env.iv, env.ct, env.tag, env.ek]) expect(f).toMatch(/^[A-Za-z0-9_-]+$/);
    // What a developer writes with only the five fields and their private key.
    const key = privateDecrypt({ key: privatePem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, Buffer.from(env.ek, "base64url"));
    expect(key.length).toBe(32);
    const d = createDecipheriv("aes-256-gcm", key, Buffer.from(env.iv, "base64url"));
    d.setAuthTag(Buffer.from(env.tag, "base64url"));
    expect(Buffer.concat([d.update(Buffer.from(env.ct, "base64url")), d.final()]).equals(share)).toBe(true);
    expect(Buffer.from(openHybridRsaAes256(privatePem, env)).equals(share)).toBe(true);
  });

  it("uses a fresh key and iv per envelope", () => {
    const a = sealHybridRsaAes256(publicPem, "k", bytes("same"));
    const b = sealHybridRsaAes256(publicPem, "k", bytes("same"));
    expect(a.iv).not.toBe(b.iv);
    expect(a.ek).not.toBe(b.ek);
    expect(a.ct).not.toBe(b.ct);
  });

  it("does not open once ct, tag, iv or ek is tampered with, nor with another private key", () => {
    const env = sealHybridRsaAes256(publicPem, "k", bytes("a key share"));
    const flip = (b64: string) => {
      const b = base64urlnopad.decode(b64);
      b[0] ^= 1;
      return base64urlnopad.encode(b);
    };
    for (const field of ["ct", "tag", "iv", "ek"] as const) {
      const tampered: HybridEnvelope = { ...env, [field]: flip(env[field]) };
      expect(() => openHybridRsaAes256(privatePem, tampered)).toThrow(EnvelopeError);
    }
    expect(() => openHybridRsaAes256(privatePem, { ...env, tag: env.tag.slice(2) })).toThrow(EnvelopeError);
    expect(() => openHybridRsaAes256(privatePem, { ...env, ct: "not base64url!" })).toThrow(EnvelopeError);
    expect(() => openHybridRsaAes256(privatePem, { ...env, alg: "RSA-OAEP-256" as "HYBRID-RSA-AES-256" })).toThrow(EnvelopeError);
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    expect(() => openHybridRsaAes256(other, env)).toThrow(EnvelopeError);
  });
});
