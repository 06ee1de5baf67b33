import type { IField } from "@noble/curves/abstract/modular.js";
import { ed25519 } from "@noble/curves/ed25519.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex, hexToBytes } from "@noble/curves/utils.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addressOf, newWalletSecret } from "../../src/crypto/threshold/keys.js";
import {
  SCHEMES,
  combineShares,
  groupPublicKey,
  refreshShares,
  reshareSecret,
  splitSecret,
  verifyShare,
  type KeyShare,
  type ShareSetPublic,
  type ThresholdCurve,
} from "../../src/crypto/threshold/shares.js";
import { codeOf } from "../support/domain-errors.js";

const curves: ThresholdCurve[] = ["secp256k1", "ed25519"];
const schemes = Object.entries(SCHEMES);
const Fn = (curve: ThresholdCurve): IField<bigint> => (curve === "secp256k1" ? secp256k1.Point.Fn : ed25519.Point.Fn);

/** Plain Lagrange interpolation at 0 of share values, with no Feldman check: what an attacker could compute. */
function rawInterpolate(curve: ThresholdCurve, shares: KeyShare[]): string {
  const F = Fn(curve);
  let acc = F.ZERO;
  for (const { index: i, value } of shares) {
    let l = F.ONE;
    for (const { index: j } of shares) if (j !== i) l = F.mul(l, F.div(BigInt(j), F.sub(BigInt(j), BigInt(i))));
    acc = F.add(acc, F.mul(l, F.fromBytes(hexToBytes(value))));
  }
  return bytesToHex(F.toBytes(acc));
}

/** Every subset of `items` of size k. */
function subsets<T>(items: T[], k: number): T[][] {
  if (k === 0) return [[]];
  if (items.length < k) return [];
  const [first, ...rest] = items;
  return [...subsets(rest, k - 1).map((s) => [first, ...s]), ...subsets(rest, k)];
}

const publicKeyOf = (curve: ThresholdCurve, secret: Uint8Array) =>
  curve === "secp256k1"
    ? secp256k1.getPublicKey(secret, true)
    : ed25519.Point.BASE.multiply(ed25519.Point.Fn.fromBytes(secret)).toBytes();

describe.each(curves)("Shamir + Feldman over %s", (curve) => {
  it.each(schemes)("%s: every share verifies, every threshold subset combines to the key, fewer do not", (_, scheme) => {
    const secret = newWalletSecret(curve);
    const { public: pub, shares } = splitSecret(curve, secret, scheme.threshold, scheme.holders);
    expect(pub).toMatchObject({ curve, threshold: scheme.threshold, holders: scheme.holders });
    expect(pub.commitments).toHaveLength(scheme.threshold);
    expect(shares.map((s) => s.index)).toEqual(Array.from({ length: scheme.holders }, (_, i) => i + 1));
    expect(bytesToHex(groupPublicKey(pub))).toBe(bytesToHex(publicKeyOf(curve, secret)));
    expect(pub.commitments[0]).toHaveLength(curve === "secp256k1" ? 66 : 64);
    for (const s of shares) {
      expect(verifyShare(pub, s)).toBe(true);
      expect(s.value).toMatch(/^[0-9a-f]{64}$/);
    }
    for (const subset of subsets(shares, scheme.threshold)) {
      expect(bytesToHex(combineShares(pub, subset))).toBe(bytesToHex(secret));
    }
    // All shares at once also combine; threshold−1 do not, and their raw interpolation is not the key.
    expect(bytesToHex(combineShares(pub, shares))).toBe(bytesToHex(secret));
    const few = shares.slice(0, scheme.threshold - 1);
    expect(codeOf(() => combineShares(pub, few))).toBe("not_enough_key_shares");
    expect(rawInterpolate(curve, few)).not.toBe(bytesToHex(secret));
  });

  it("property: any threshold subset (any order) combines to the key; a tampered share fails Feldman", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...schemes.map(([, s]) => s)),
        fc.infiniteStream(fc.nat()),
        fc.nat({ max: 31 }),
        fc.integer({ min: 1, max: 255 }),
        (scheme, picks, byte, xor) => {
          const secret = newWalletSecret(curve);
          const { public: pub, shares } = splitSecret(curve, secret, scheme.threshold, scheme.holders);
          const pool = [...shares];
          const chosen: KeyShare[] = [];
          const it = picks[Symbol.iterator]();
          while (chosen.length < scheme.threshold) chosen.push(pool.splice(it.next().value % pool.length, 1)[0]);
          expect(bytesToHex(combineShares(pub, chosen))).toBe(bytesToHex(secret));

          const bytes = hexToBytes(chosen[0].value);
          bytes[byte] ^= xor;
          const tampered = { index: chosen[0].index, value: bytesToHex(bytes) };
          expect(verifyShare(pub, tampered)).toBe(false);
          expect(codeOf(() => combineShares(pub, [tampered, ...chosen.slice(1)]))).toBe("invalid_key_share");
          // A valid share presented under another holder's index fails too.
          expect(verifyShare(pub, { index: (chosen[0].index % scheme.holders) + 1, value: chosen[0].value })).toBe(false);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("refuses malformed shares, duplicates, bad schemes and bad secrets with clear codes", () => {
    const { public: pub, shares } = splitSecret(curve, newWalletSecret(curve), 2, 3);
    for (const bad of [
      { index: 0, value: shares[0].value },
      { index: 4, value: shares[0].value },
      { index: 1.5, value: shares[0].value },
      { index: 1, value: "zz" },
      { index: 1, value: "00".repeat(32) },
      { index: 1, value: "ff".repeat(32) }, // not below the group order
      { index: 1, value: shares[0].value + "00" },
    ]) {
      expect(verifyShare(pub, bad)).toBe(false);
    }
    expect(codeOf(() => combineShares(pub, [shares[0], shares[0]]))).toBe("duplicate_key_share");
    // A commitment of another share set: the share no longer verifies.
    const other = splitSecret(curve, newWalletSecret(curve), 2, 3).public;
    const mixed: ShareSetPublic = { ...pub, commitments: [pub.commitments[0], other.commitments[1]] };
    expect(verifyShare(mixed, shares[0])).toBe(false);
    expect(codeOf(() => combineShares({ ...pub, commitments: ["00".repeat(33)] }, shares))).toBe("invalid_share_set");
    expect(codeOf(() => combineShares({ ...pub, commitments: [pub.commitments[0], "02" + "11".repeat(32)] }, shares))).toBe(
      "invalid_share_set",
    );

    for (const [t, n] of [[1, 3], [3, 2], [0, 0], [2, 33], [2.5, 3]]) {
      expect(codeOf(() => splitSecret(curve, newWalletSecret(curve), t, n))).toBe("invalid_threshold_scheme");
    }
    expect(codeOf(() => splitSecret(curve, new Uint8Array(32), 2, 3))).toBe("invalid_private_key");
    expect(codeOf(() => splitSecret(curve, new Uint8Array(32).fill(0xff), 2, 3))).toBe("invalid_private_key");
    expect(codeOf(() => splitSecret(curve, new Uint8Array(31).fill(1), 2, 3))).toBe("invalid_private_key");
  });

  it("refresh: same key and address, new shares and commitments; old shares neither verify nor combine with new ones", () => {
    const secret = newWalletSecret(curve);
    const before = splitSecret(curve, secret, 2, 3);
    const after = refreshShares(before.public, before.shares);
    expect(after.public.commitments[0]).toBe(before.public.commitments[0]);
    expect(after.public.commitments[1]).not.toBe(before.public.commitments[1]);
    expect(addressOf(curve, groupPublicKey(after.public))).toBe(addressOf(curve, groupPublicKey(before.public)));
    for (let i = 0; i < 3; i++) {
      expect(after.shares[i].index).toBe(i + 1);
      expect(after.shares[i].value).not.toBe(before.shares[i].value);
      expect(verifyShare(after.public, after.shares[i])).toBe(true);
      expect(verifyShare(after.public, before.shares[i])).toBe(false);
    }
    expect(bytesToHex(combineShares(after.public, [after.shares[0], after.shares[2]]))).toBe(bytesToHex(secret));
    // An attacker holding an old share and a new one interpolates garbage, with or without Feldman checks.
    const mixed = [before.shares[0], after.shares[1]];
    expect(rawInterpolate(curve, mixed)).not.toBe(bytesToHex(secret));
    expect(codeOf(() => combineShares(after.public, mixed))).toBe("invalid_key_share");
    expect(codeOf(() => combineShares(before.public, mixed))).toBe("invalid_key_share");
  });

  it("refresh needs every holder's valid share", () => {
    const { public: pub, shares } = splitSecret(curve, newWalletSecret(curve), 2, 3);
    expect(codeOf(() => refreshShares(pub, shares.slice(0, 2)))).toBe("not_enough_key_shares");
    const tampered = { ...shares[2], value: shares[1].value };
    expect(codeOf(() => refreshShares(pub, [shares[0], shares[1], tampered]))).toBe("invalid_key_share");
  });

  it("reshare 2-of-2 -> 2-of-3 -> 3-of-5 -> 2-of-2 keeps the key and address; old shares do not verify in the new set", () => {
    const secret = newWalletSecret(curve);
    let set = splitSecret(curve, secret, 2, 2);
    const address = addressOf(curve, groupPublicKey(set.public));
    for (const next of [SCHEMES.TWO_OF_THREE, SCHEMES.THREE_OF_FIVE, SCHEMES.TWO_OF_TWO]) {
      const old = set;
      // Any threshold subset of the old holders can reshare (here: the last ones).
      set = reshareSecret(old.public, old.shares.slice(-old.public.threshold), next.threshold, next.holders);
      expect(set.public).toMatchObject({ curve, threshold: next.threshold, holders: next.holders });
      expect(set.public.commitments[0]).toBe(old.public.commitments[0]);
      expect(addressOf(curve, groupPublicKey(set.public))).toBe(address);
      expect(set.shares).toHaveLength(next.holders);
      for (const s of set.shares) expect(verifyShare(set.public, s)).toBe(true);
      for (const s of old.shares) if (s.index <= next.holders) expect(verifyShare(set.public, s)).toBe(false);
      for (const subset of subsets(set.shares, next.threshold)) {
        expect(bytesToHex(combineShares(set.public, subset))).toBe(bytesToHex(secret));
      }
    }
  });

  it("reshare refuses too few or bad shares and bad target schemes", () => {
    const { public: pub, shares } = splitSecret(curve, newWalletSecret(curve), 3, 5);
    expect(codeOf(() => reshareSecret(pub, shares.slice(0, 2), 2, 3))).toBe("not_enough_key_shares");
    expect(codeOf(() => reshareSecret(pub, [shares[0], shares[1], { ...shares[2], index: 4 }], 2, 3))).toBe("invalid_key_share");
    expect(codeOf(() => reshareSecret(pub, shares, 4, 3))).toBe("invalid_threshold_scheme");
  });

  it("property: refresh and reshare keep the address through any sequence", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("refresh", ...Object.keys(SCHEMES)), { minLength: 1, maxLength: 4 }), (steps) => {
        const secret = newWalletSecret(curve);
        let set = splitSecret(curve, secret, 2, 3);
        const address = addressOf(curve, groupPublicKey(set.public));
        for (const step of steps) {
          if (step === "refresh") set = refreshShares(set.public, set.shares);
          else {
            const s = SCHEMES[step as keyof typeof SCHEMES];
            set = reshareSecret(set.public, set.shares, s.threshold, s.holders);
          }
          expect(addressOf(curve, groupPublicKey(set.public))).toBe(address);
        }
        expect(bytesToHex(combineShares(set.public, set.shares.slice(0, set.public.threshold)))).toBe(bytesToHex(secret));
      }),
      { numRuns: 10 },
    );
  });
});
