import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { estimatedStateBits, hasEnoughEntropy, MIN_STATE_BITS } from "../../../src/domain/sign-in/state-entropy.js";

describe("client-chosen states: estimated entropy", () => {
  it("passes random states of 16+ bytes, base64url or hex, every time", () => {
    for (let i = 0; i < 20_000; i++) {
      expect(hasEnoughEntropy(randomBytes(16).toString("base64url"))).toBe(true);
      expect(hasEnoughEntropy(randomBytes(16).toString("hex"))).toBe(true);
    }
  });

  it("refuses repeats, sequences, repeated runs and small alphabets, however long", () => {
    for (const s of [
      "aaaaaaaaaaaaaaaaaaaaaa",
      "abcdefghijklmnopqrstuv",
      "abababababababababababab",
      "abcabcabcabcabcabcabcabc",
      "0123456789012345678901234567890123",
      "aAaAaAaAaAaAaAaAaAaAaAaA",
      "ACEGIKMOQSUWYacegikmoqsu",
      "passwordpasswordpassword",
      "abcdefghijklmnopqrstuvwxyz0123456789ABCDEF",
      "z".repeat(256),
    ])
      expect(estimatedStateBits(s), s).toBeLessThan(MIN_STATE_BITS);
  });
});
