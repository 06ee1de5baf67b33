import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex, randomBytes } from "@noble/curves/utils.js";
import { describe, expect, it } from "vitest";
import { libsecp256k1 } from "../../src/crypto/libsecp256k1.js";
import { signDigestWithShares } from "../../src/crypto/threshold/ecdsa.js";
import { groupOf, randomScalar } from "../../src/crypto/threshold/group.js";
import { newWalletSecret } from "../../src/crypto/threshold/keys.js";
import { splitSecret, verifyShare } from "../../src/crypto/threshold/shares.js";

const g = groupOf("secp256k1");
const n = secp256k1.Point.Fn.ORDER;

describe("libsecp256k1 under the threshold code", () => {
  it("is loaded from the package's prebuilt binary on this platform", () => {
    expect(libsecp256k1).not.toBeNull();
  });

  it("multiplies the base point as noble does, and refuses 0 and n as noble does", () => {
    for (let i = 0; i < 100; i++) {
      const k = randomScalar(g);
      expect(g.base.multiply(k).equals(secp256k1.Point.BASE.multiply(k) as never)).toBe(true);
    }
    for (const k of [1n, 2n, n - 1n]) expect(g.base.multiply(k).equals(secp256k1.Point.BASE.multiply(k) as never)).toBe(true);
    for (const k of [0n, n]) {
      expect(() => secp256k1.Point.BASE.multiply(k)).toThrow();
      expect(() => g.base.multiply(k)).toThrow();
    }
  });

  it("signs with a share set exactly as noble signs with the whole key (RFC 6979, low s), for random keys and digests", () => {
    for (let i = 0; i < 50; i++) {
      const secret = newWalletSecret("secp256k1");
      const set = splitSecret("secp256k1", secret, 2, 2);
      const digest = randomBytes(32);
      const expected = secp256k1.sign(digest, secret, { prehash: false, lowS: true, format: "recovered" });
      const made = signDigestWithShares(set.public, set.shares, digest);
      expect(made.signature).toBe(`0x${bytesToHex(expected.subarray(1))}${(27 + expected[0]!).toString(16)}`);
      expect(made.recovery).toBe(expected[0]);
    }
  });

  it("keeps the Feldman check: a share off by one, or another set's share, does not verify", () => {
    const set = splitSecret("secp256k1", newWalletSecret("secp256k1"), 2, 3);
    const other = splitSecret("secp256k1", newWalletSecret("secp256k1"), 2, 3);
    for (const share of set.shares) {
      expect(verifyShare(set.public, share)).toBe(true);
      const bumped = g.Fn.add(g.Fn.fromBytes(Buffer.from(share.value, "hex")), 1n);
      expect(verifyShare(set.public, { index: share.index, value: bytesToHex(g.Fn.toBytes(bumped)) })).toBe(false);
      expect(verifyShare(set.public, other.shares[share.index - 1]!)).toBe(false);
    }
  });
});
