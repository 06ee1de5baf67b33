import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SealError, createSealer } from "../../src/crypto/seal.js";

const key = () => randomBytes(32);

/** Flips one bit of one base64url segment of a sealed value, keeping the encoding valid. */
function flipBit(sealed: string, segment: 2 | 3, byteIndex = 0): string {
  const parts = sealed.split(".");
  const bytes = Buffer.from(parts[segment], "base64url");
  bytes[byteIndex] ^= 0x01;
  parts[segment] = bytes.toString("base64url");
  return parts.join(".");
}

describe("createSealer", () => {
  it("round-trips text, including empty and non-ASCII strings", () => {
    const sealer = createSealer([{ id: "k1", key: key() }]);
    for (const plaintext of ["client-secret-123", "", "pässwörd 🔑"]) {
      expect(sealer.open(sealer.seal(plaintext))).toBe(plaintext);
    }
  });

  it("produces v1.<keyId>.<iv>.<ciphertext+tag> with a fresh IV each time", () => {
    const sealer = createSealer([{ id: "k1", key: key() }]);
    const a = sealer.seal("same");
    const b = sealer.seal("same");
    expect(a).toMatch(/^v1\.k1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    // 4 bytes of plaintext + 16 bytes of tag.
    expect(Buffer.from(a.split(".")[3], "base64url")).toHaveLength(4 + 16);
    expect(a).not.toBe(b);
    expect(a).not.toContain("same");
  });

  it("binds the value to its aad: another row's aad, or none, does not open it", () => {
    const sealer = createSealer([{ id: "k1", key: key() }]);
    const sealed = sealer.seal("secret", "provider:1");
    expect(sealer.open(sealed, "provider:1")).toBe("secret");
    expect(() => sealer.open(sealed, "provider:2")).toThrow(SealError);
    expect(() => sealer.open(sealed)).toThrow(SealError);
    expect(() => sealer.open(sealer.seal("secret"), "provider:1")).toThrow(SealError);
  });

  it("detects tampering with the ciphertext, the tag, the IV or the header", () => {
    const k1 = key();
    const sealer = createSealer([
      { id: "k1", key: k1 },
      { id: "k2", key: k1 },
    ]);
    const sealed = sealer.seal("secret");
    const bodyLength = Buffer.from(sealed.split(".")[3], "base64url").length;
    expect(() => sealer.open(flipBit(sealed, 3, 0))).toThrow(SealError);
    expect(() => sealer.open(flipBit(sealed, 3, bodyLength - 1))).toThrow(SealError);
    expect(() => sealer.open(flipBit(sealed, 2))).toThrow(SealError);
    // Same key material under another id: only the authenticated header tells them apart.
    expect(() => sealer.open(sealed.replace(/^v1\.k1\./, "v1.k2."))).toThrow(SealError);
    expect(sealer.open(sealed)).toBe("secret");
  });

  it.each([
    ["garbage", "hello"],
    ["another version", "v2.k1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA"],
    ["a short IV", "v1.k1.AAAA.AAAAAAAAAAAAAAAAAAAAAA"],
    ["a body shorter than the tag", "v1.k1.AAAAAAAAAAAAAAAA.AAAA"],
    ["invalid base64url", "v1.k1.AAAAAAAAAAAAAAA*.AAAAAAAAAAAAAAAAAAAAAA"],
    ["an extra segment", "v1.k1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.x"],
  ])("rejects %s", (_, sealed) => {
    const sealer = createSealer([{ id: "k1", key: key() }]);
    expect(() => sealer.open(sealed)).toThrow(SealError);
  });

  it("rotates: values sealed with the old key open with [new, old], and new values use the new key", () => {
    const oldKey = { id: "2024", key: key() };
    const newKey = { id: "2025", key: key() };
    const sealedWithOld = createSealer([oldKey]).seal("secret", "provider:7");

    const rotated = createSealer([newKey, oldKey]);
    expect(rotated.open(sealedWithOld, "provider:7")).toBe("secret");
    expect(rotated.needsReseal(sealedWithOld)).toBe(true);

    const resealed = rotated.seal("secret", "provider:7");
    expect(resealed.startsWith("v1.2025.")).toBe(true);
    expect(rotated.needsReseal(resealed)).toBe(false);
    expect(createSealer([newKey]).open(resealed, "provider:7")).toBe("secret");
  });

  it("fails on a key id it does not hold, and on the right id with the wrong key", () => {
    const sealed = createSealer([{ id: "old", key: key() }]).seal("secret");
    expect(() => createSealer([{ id: "new", key: key() }]).open(sealed)).toThrow(/unknown key old/);
    expect(() => createSealer([{ id: "old", key: key() }]).open(sealed)).toThrow(SealError);
  });

  it("refuses bad key configuration", () => {
    expect(() => createSealer([])).toThrow(/at least one key/);
    expect(() => createSealer([{ id: "k1", key: randomBytes(16) }])).toThrow(/32 bytes/);
    expect(() => createSealer([{ id: "k.1", key: key() }])).toThrow(/invalid key id/);
    expect(() =>
      createSealer([
        { id: "k1", key: key() },
        { id: "k1", key: key() },
      ]),
    ).toThrow(/duplicate key id/);
  });

  it("copies the key, so later changes to the caller's buffer do not matter", () => {
    const material = key();
    const sealer = createSealer([{ id: "k1", key: material }]);
    const sealed = sealer.seal("secret");
    material.fill(0);
    expect(sealer.open(sealed)).toBe("secret");
  });
});
