import { ed25519, ed25519_FROST } from "@noble/curves/ed25519.js";
import { schnorr_FROST, secp256k1 } from "@noble/curves/secp256k1.js";
import type { FROST } from "@noble/curves/abstract/frost.js";
import { bytesToHex, hexToBytes } from "@noble/curves/utils.js";
import { describe, expect, it } from "vitest";
import { frostAggregate, frostCommit, frostSignShare, type FrostSuite } from "../../src/crypto/threshold/frost.js";
import { newWalletSecret } from "../../src/crypto/threshold/keys.js";
import { splitSecret, verifyShare, type KeyShare, type ShareSetPublic, type ThresholdCurve } from "../../src/crypto/threshold/shares.js";
import { codeOf } from "../support/domain-errors.js";

/**
 * Known answers that pin FROST to RFC 9591, whatever the implementation does to be fast: the ciphersuite's
 * own test vectors, and noble's reference suites fed the same randomness.
 */

/** RFC 9591 Appendix E.1, FROST(Ed25519, SHA-512): 2-of-3 by trusted dealer, participants 1 and 3 sign "test"
 * (as in the Zcash Foundation's frost-ed25519 vectors.json, which track the RFC). */
const E1 = {
  groupSecretKey: "7b1c33d3f5291d85de664833beb1ad469f7fb6025a0ec78b3a790c6e13a98304",
  groupPublicKey: "15d21ccd7ee42959562fc8aa63224c8851fb3ec85a3faf66040d380fb9738673",
  coefficient: "178199860edd8c62f5212ee91eff1295d0d670ab4ed4506866bae57e7030b204",
  message: "74657374",
  shares: {
    1: "929dcc590407aae7d388761cddb0c0db6f5627aea8e217f4a033f2ec83d93509",
    2: "a91e66e012e4364ac9aaa405fcafd370402d9859f7b6685c07eed76bf409e80d",
    3: "d3cb090a075eb154e82fdb4b3cb507f110040905468bb9c46da8bdea643a9a02",
  } as Record<number, string>,
  round1: {
    1: {
      hidingRandomness: "06894e04ee4aceec8619d5f6a0a180e2f47194d2ac306cba586b555e7c48d765",
      bindingRandomness: "40d6f879ff22e22409f7d808fed81f37118e7d3e4af71c0f44c60207553bcbce",
      hidingNonce: "ef6599dea4010581a72b3018c37c29a4341d7cab0773e8687ca74dcf14009701",
      bindingNonce: "2baadfa0c69aa60d517ad4751de372a73f9d89cfc39026601f18458cdec12605",
      hidingCommitment: "9b116f12589591a7e23fe8048059ab10ab48e67739e7a2fb3890f61a7999478c",
      bindingCommitment: "c39b66b7dfccb122da24f13587f9a08c4347cae70046ca15169adf90ba65854d",
    },
    3: {
      hidingRandomness: "fa5d950626782aade9e33fa781376d4888c2d1de7c37518bc248eb818ed0cdde",
      bindingRandomness: "7459a4d14ded0e365b085271be8dc6600d5b88f3978a2174297ffa32001a5afc",
      hidingNonce: "80f8d9a4b8f9366e1a0b618107c907cd3ee29fa9bb40b4691cc1bde696240005",
      bindingNonce: "2610b664a5a187b4855e87d2ff485bebdf043dc2f161fcd4854cd01dc0276404",
      hidingCommitment: "e679a2a971748ccfaabead4dbe8ac1def61275c186c79d471e1e45091ad1e687",
      bindingCommitment: "b2a942478453fabb6bd3181c56ba657413447b4136e1daea2484d396d1a516b3",
    },
  } as Record<number, Record<string, string>>,
  sigShares: {
    1: "60997f0142e43e8005027fe5ab7447dac00d22c2d7ddd9571a02613ba7d81c08",
    3: "79390e78bc59699c7af831f8f5fb478ec871a85f561a8641b5670ac4443f720f",
  } as Record<number, string>,
  signature:
    "154fb694ee7fcb37bf2381d94488c2a84b03b3352ad085feca81ad26d45852b7ecfe971ce4da95c4a95db93ac376b053897fca212ef85f99cf696bffeb178f07",
};

/** A random-bytes source that hands out the given values in order (what noble's `rng` parameter takes). */
function replay(...values: string[]): (n?: number) => Uint8Array<ArrayBuffer> {
  const queue = values.map((v) => hexToBytes(v));
  return () => {
    const next = queue.shift();
    if (!next) throw new Error("replay ran out of randomness");
    return next;
  };
}

/** The RFC's share set in our shape: Feldman commitments [a0·G, a1·G] of the dealer's polynomial. */
function e1ShareSet(): ShareSetPublic {
  const Fn = ed25519.Point.Fn;
  const a1G = ed25519.Point.BASE.multiply(Fn.fromBytes(hexToBytes(E1.coefficient)));
  return { curve: "ed25519", threshold: 2, holders: 3, commitments: [E1.groupPublicKey, bytesToHex(a1G.toBytes())] };
}

describe("FROST(Ed25519, SHA-512): RFC 9591 Appendix E.1", () => {
  const pub = e1ShareSet();
  const share = (i: number): KeyShare => ({ index: i, value: E1.shares[i] });
  const message = hexToBytes(E1.message);

  it("the dealer's share set is the RFC's: group key a0·G, every participant share passes the Feldman check", () => {
    expect(bytesToHex(ed25519.Point.BASE.multiply(ed25519.Point.Fn.fromBytes(hexToBytes(E1.groupSecretKey))).toBytes())).toBe(E1.groupPublicKey);
    for (const i of [1, 2, 3]) expect(verifyShare(pub, share(i))).toBe(true);
  });

  it("round one: the nonces and commitments come out of the RFC's randomness", () => {
    for (const i of [1, 3]) {
      const r = E1.round1[i];
      const out = frostCommit("ed25519", pub, share(i), replay(r.hidingRandomness, r.bindingRandomness));
      expect(out.nonces).toBe(r.hidingNonce + r.bindingNonce);
      expect(out.commitments).toBe(r.hidingCommitment + r.bindingCommitment);
    }
  });

  it("round two and aggregation give the RFC's signature shares and signature, which Ed25519 verifies", () => {
    const commitments = { 1: E1.round1[1].hidingCommitment + E1.round1[1].bindingCommitment, 3: E1.round1[3].hidingCommitment + E1.round1[3].bindingCommitment };
    const sigShares: Record<number, string> = {};
    for (const i of [1, 3]) {
      sigShares[i] = frostSignShare("ed25519", pub, share(i), E1.round1[i].hidingNonce + E1.round1[i].bindingNonce, commitments, message);
      expect(sigShares[i]).toBe(E1.sigShares[i]);
    }
    const signature = frostAggregate("ed25519", pub, commitments, sigShares, message);
    expect(bytesToHex(signature)).toBe(E1.signature);
    expect(ed25519.verify(signature, message, hexToBytes(E1.groupPublicKey))).toBe(true);
  });
});

/** One whole signing with noble's reference suite, used as is, over the same shares and randomness. */
function referenceSignature(frost: FROST, pub: ShareSetPublic, signers: KeyShare[], randomness: string[][], message: Uint8Array) {
  const id = (i: number) => frost.Identifier.fromNumber(i);
  const points = pub.commitments.map((c) => hexToBytes(c));
  // Holder i's verifying share Σ C_j·i^j, from the commitments alone.
  const verifyingShare = (i: number): Uint8Array => {
    const power = (j: number) => BigInt(i) ** BigInt(j); // i ≤ 5, j < 3: far below either group order
    if (pub.curve === "ed25519") {
      return points.map((c) => ed25519.Point.fromBytes(c)).reduce((acc, c, j) => acc.add(c.multiplyUnsafe(power(j))), ed25519.Point.ZERO).toBytes();
    }
    return points.map((c) => secp256k1.Point.fromBytes(c)).reduce((acc, c, j) => acc.add(c.multiplyUnsafe(power(j))), secp256k1.Point.ZERO).toBytes();
  };
  const verifyingShares = Object.fromEntries(Array.from({ length: pub.holders }, (_, k) => [id(k + 1), verifyingShare(k + 1)]));
  const pkg = { signers: { min: pub.threshold, max: pub.holders }, commitments: points, verifyingShares };
  const secrets = signers.map((s) => ({ identifier: id(s.index), signingShare: hexToBytes(s.value) }));
  const round1 = secrets.map((s, k) => frost.commit(s, replay(...randomness[k])));
  const list = round1.map((r) => r.commitments);
  const shares = Object.fromEntries(secrets.map((s, k) => [s.identifier, frost.signShare(s, pkg, round1[k].nonces, list, message)]));
  return { commitments: list, sigShares: shares, signature: frost.aggregate(pkg, list, message, shares) };
}

const suites: { suite: FrostSuite; curve: ThresholdCurve; reference: FROST }[] = [
  { suite: "ed25519", curve: "ed25519", reference: ed25519_FROST },
  { suite: "secp256k1-bip340", curve: "secp256k1", reference: schnorr_FROST },
];

describe.each(suites)("FROST $suite agrees with noble's reference suite byte for byte", ({ suite, curve, reference }) => {
  it.each([
    [2, 2, [1, 2]],
    [2, 3, [3, 1]],
    [3, 5, [2, 4, 5]],
  ])("%i-of-%i, signers %j: same commitments, signature shares and signature", (threshold, holders, indexes) => {
    for (let run = 0; run < 3; run++) {
      const { public: pub, shares } = splitSecret(curve, newWalletSecret(curve), threshold, holders);
      const signers = (indexes as number[]).map((i) => shares[i - 1]);
      const randomness = signers.map(() => [bytesToHex(crypto.getRandomValues(new Uint8Array(32))), bytesToHex(crypto.getRandomValues(new Uint8Array(32)))]);
      const message = crypto.getRandomValues(new Uint8Array(40 + run));
      const expected = referenceSignature(reference, pub, signers, randomness, message);

      const round1 = signers.map((s, k) => frostCommit(suite, pub, s, replay(...randomness[k])));
      const commitments = Object.fromEntries(signers.map((s, k) => [s.index, round1[k].commitments]));
      signers.forEach((s, k) => expect(round1[k].commitments).toBe(bytesToHex(expected.commitments[k].hiding) + bytesToHex(expected.commitments[k].binding)));
      const sigShares = Object.fromEntries(signers.map((s, k) => [s.index, frostSignShare(suite, pub, s, round1[k].nonces, commitments, message)]));
      signers.forEach((s) => expect(sigShares[s.index]).toBe(bytesToHex(expected.sigShares[reference.Identifier.fromNumber(s.index)])));
      expect(bytesToHex(frostAggregate(suite, pub, commitments, sigShares, message))).toBe(bytesToHex(expected.signature));
    }
  });
});

describe("FROST ed25519: points that are not in the prime-order subgroup are refused every time", () => {
  // A point of order 8 (libsodium's blocklist): added to a valid commitment it keeps the point on the curve
  // but gives it a torsion component that a plain Ed25519 verifier would let through.
  const order8 = ed25519.Point.fromBytes(hexToBytes("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"));

  it("a commitment with a torsion component fails signing and aggregation, on the first call and on later ones", () => {
    const { public: pub, shares } = splitSecret("ed25519", newWalletSecret("ed25519"), 2, 2);
    const [a, b] = shares;
    const message = new TextEncoder().encode("m");
    const ra = frostCommit("ed25519", pub, a);
    const rb = frostCommit("ed25519", pub, b);
    const binding = ed25519.Point.fromBytes(hexToBytes(rb.commitments.slice(64)));
    const dirty = rb.commitments.slice(0, 64) + bytesToHex(binding.add(order8).toBytes());
    const commitments = { 1: ra.commitments, 2: dirty };
    for (let k = 0; k < 3; k++) {
      expect(codeOf(() => frostSignShare("ed25519", pub, a, ra.nonces, commitments, message))).toBe("invalid_signing_round");
      expect(codeOf(() => frostAggregate("ed25519", pub, commitments, { 1: "00".repeat(32), 2: "00".repeat(32) }, message))).toBe(
        "invalid_signature_share",
      );
    }
    // The clean commitments still sign.
    const clean = { 1: ra.commitments, 2: rb.commitments };
    const za = frostSignShare("ed25519", pub, a, ra.nonces, clean, message);
    const zb = frostSignShare("ed25519", pub, b, rb.nonces, clean, message);
    expect(ed25519.verify(frostAggregate("ed25519", pub, clean, { 1: za, 2: zb }, message), message, hexToBytes(pub.commitments[0]))).toBe(true);
  });

  it("a share set whose key has a torsion component is refused", () => {
    const { public: pub, shares } = splitSecret("ed25519", newWalletSecret("ed25519"), 2, 2);
    const key = ed25519.Point.fromBytes(hexToBytes(pub.commitments[0]));
    const dirty = { ...pub, commitments: [bytesToHex(key.add(order8).toBytes()), pub.commitments[1]] };
    for (let k = 0; k < 2; k++) expect(codeOf(() => frostCommit("ed25519", dirty, shares[0]))).toBe("invalid_key_share");
  });
});
