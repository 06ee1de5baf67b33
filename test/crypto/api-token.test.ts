import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  generateApiToken,
  hashApiToken,
  looksLikeApiToken,
} from "../../src/crypto/api-token.js";

describe("generateApiToken", () => {
  it("returns sgl_ + 64 lowercase hex, its last 6 characters as checksum and its SHA-256 as hash", () => {
    const { raw, hash, checksum } = generateApiToken();
    expect(raw).toMatch(/^sgl_[0-9a-f]{64}$/);
    expect(checksum).toBe(raw.slice(-6));
    expect(checksum).toMatch(/^[0-9a-f]{6}$/);
    expect(Buffer.isBuffer(hash)).toBe(true);
    expect(hash.toString("hex")).toBe(createHash("sha256").update(raw).digest("hex"));
  });

  it("never repeats a token", () => {
    const raws = new Set(Array.from({ length: 200 }, () => generateApiToken().raw));
    expect(raws.size).toBe(200);
  });
});

describe("hashApiToken", () => {
  it("is SHA-256 of the string (FIPS 180-2 'abc' vector)", () => {
    expect(hashApiToken("abc").toString("hex")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });
});

describe("looksLikeApiToken", () => {
  it("accepts a generated token", () => {
    expect(looksLikeApiToken(generateApiToken().raw)).toBe(true);
  });

  it.each([
    ["empty", ""],
    ["no prefix", "a".repeat(64)],
    ["another prefix", "sk_" + "a".repeat(64)],
    ["upper-case hex", "sgl_" + "A".repeat(64)],
    ["too short", "sgl_" + "a".repeat(63)],
    ["too long", "sgl_" + "a".repeat(65)],
    ["non-hex", "sgl_" + "g".repeat(64)],
    ["surrounding whitespace", " sgl_" + "a".repeat(64)],
    ["trailing newline", "sgl_" + "a".repeat(64) + "\n"],
  ])("rejects %s", (_, raw) => {
    expect(looksLikeApiToken(raw)).toBe(false);
  });
});
