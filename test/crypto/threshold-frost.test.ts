import { ed25519 } from "@noble/curves/ed25519.js";
import { schnorr } from "@noble/curves/secp256k1.js";
import { bytesToHex, hexToBytes } from "@noble/curves/utils.js";
import { base58 } from "@scure/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DomainError } from "../../src/errors.js";
import { frostAggregate, frostCommit, frostSignShare, type FrostSuite } from "../../src/crypto/threshold/frost.js";
import { addressOf, importedSecret, newWalletSecret } from "../../src/crypto/threshold/keys.js";
import {
  SCHEMES,
  groupPublicKey,
  refreshShares,
  reshareSecret,
  splitSecret,
  type KeyShare,
  type ShareSetPublic,
  type ThresholdCurve,
} from "../../src/crypto/threshold/shares.js";
import { codeOf } from "../support/domain-errors.js";

const suites: { suite: FrostSuite; curve: ThresholdCurve }[] = [
  { suite: "ed25519", curve: "ed25519" },
  { suite: "secp256k1-bip340", curve: "secp256k1" },
];

/** Both rounds with the given signers, each holding only its own share; returns the aggregate signature. */
function sign(suite: FrostSuite, pub: ShareSetPublic, signers: KeyShare[], message: Uint8Array): Uint8Array {
  const round1 = signers.map((s) => frostCommit(suite, pub, s));
  const commitments = Object.fromEntries(signers.map((s, k) => [s.index, round1[k].commitments]));
  const sigShares = Object.fromEntries(
    signers.map((s, k) => [s.index, frostSignShare(suite, pub, s, round1[k].nonces, commitments, message)]),
  );
  return frostAggregate(suite, pub, commitments, sigShares, message);
}

/** What a standard verifier checks: plain Ed25519 (Solana), BIP-340 under the x-only key (Taproot). */
function verifies(suite: FrostSuite, pub: ShareSetPublic, sig: Uint8Array, message: Uint8Array): boolean {
  const key = groupPublicKey(pub);
  return suite === "ed25519" ? ed25519.verify(sig, message, key) : schnorr.verify(sig, message, key.subarray(1));
}

function subsets<T>(items: T[], k: number): T[][] {
  if (k === 0) return [[]];
  if (items.length < k) return [];
  const [first, ...rest] = items;
  return [...subsets(rest, k - 1).map((s) => [first, ...s]), ...subsets(rest, k)];
}

const text = (s: string) => new TextEncoder().encode(s);

describe.each(suites)("FROST $suite", ({ suite, curve }) => {
  it.each(Object.entries(SCHEMES))("%s: every threshold subset (and all holders) signs; a standard verifier accepts", (_, scheme) => {
    const { public: pub, shares } = splitSecret(curve, newWalletSecret(curve), scheme.threshold, scheme.holders);
    const message = text(`sign in to example.com, nonce ${Math.random()}`);
    for (const signers of [...subsets(shares, scheme.threshold), shares]) {
      const sig = sign(suite, pub, signers, message);
      expect(sig).toHaveLength(64);
      expect(verifies(suite, pub, sig, message)).toBe(true);
      expect(verifies(suite, pub, sig, text("another message"))).toBe(false);
    }
  });

  it("property: random keys (both parities of y for BIP-340), messages and signer subsets verify", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.shuffledSubarray([1, 2, 3, 4, 5], { minLength: 3 }), (message, indexes) => {
        const { public: pub, shares } = splitSecret(curve, newWalletSecret(curve), 3, 5);
        const sig = sign(suite, pub, indexes.map((i) => shares[i - 1]), message);
        expect(verifies(suite, pub, sig, message)).toBe(true);
      }),
      { numRuns: 15 },
    );
  });

  it("signs after refresh and reshare under the same key; old shares cannot join", () => {
    const before = splitSecret(curve, newWalletSecret(curve), 2, 2);
    const refreshed = refreshShares(before.public, before.shares);
    const reshared = reshareSecret(refreshed.public, refreshed.shares, 2, 3);
    const message = text("after reshare");
    expect(verifies(suite, reshared.public, sign(suite, reshared.public, [reshared.shares[1], reshared.shares[2]], message), message)).toBe(
      true,
    );
    expect(groupPublicKey(reshared.public)).toEqual(groupPublicKey(before.public));
    // A share of the old set is refused before it can sign in the new one.
    expect(codeOf(() => frostCommit(suite, reshared.public, before.shares[0]))).toBe("invalid_key_share");
  });

  it("a tampered share is refused at commit and at signing; a wrong signature share is named at aggregation", () => {
    const { public: pub, shares } = splitSecret(curve, newWalletSecret(curve), 2, 3);
    const message = text("pay 1 SOL");
    const bad = { index: 1, value: shares[1].value };
    expect(codeOf(() => frostCommit(suite, pub, bad))).toBe("invalid_key_share");

    const [a, b] = [shares[0], shares[2]];
    const ra = frostCommit(suite, pub, a);
    const rb = frostCommit(suite, pub, b);
    const commitments = { [a.index]: ra.commitments, [b.index]: rb.commitments };
    expect(codeOf(() => frostSignShare(suite, pub, bad, ra.nonces, commitments, message))).toBe("invalid_key_share");
    const za = frostSignShare(suite, pub, a, ra.nonces, commitments, message);
    const zb = frostSignShare(suite, pub, b, rb.nonces, commitments, message);
    // Holder 3 hands in holder 1's signature share as its own: the sum does not verify, and aggregation says whose it is.
    const zbOther = za;
    let error: DomainError | undefined;
    try {
      frostAggregate(suite, pub, commitments, { [a.index]: za, [b.index]: zbOther }, message);
    } catch (e) {
      error = e as DomainError;
    }
    expect(error?.code).toBe("invalid_signature_share");
    expect(error?.payload).toEqual({ signers: [String(b.index)] });
    // Aggregating for a message other than the one signed fails, as does a missing share.
    expect(codeOf(() => frostAggregate(suite, pub, commitments, { [a.index]: za, [b.index]: zb }, text("pay 2 SOL")))).toBe(
      "invalid_signature_share",
    );
    expect(codeOf(() => frostAggregate(suite, pub, commitments, { [a.index]: za }, message))).toBe("invalid_signature_share");
    expect(verifies(suite, pub, frostAggregate(suite, pub, commitments, { [a.index]: za, [b.index]: zb }, message), message)).toBe(true);
  });

  it("refuses rounds that do not fit: too few signers, foreign or malformed commitments, nonces of another round", () => {
    const { public: pub, shares } = splitSecret(curve, newWalletSecret(curve), 2, 3);
    const message = text("m");
    const [a, b] = shares;
    const ra = frostCommit(suite, pub, a);
    const rb = frostCommit(suite, pub, b);
    const commitments = { 1: ra.commitments, 2: rb.commitments };
    expect(codeOf(() => frostSignShare(suite, pub, a, ra.nonces, { 1: ra.commitments }, message))).toBe("invalid_signing_round");
    expect(codeOf(() => frostSignShare(suite, pub, a, ra.nonces, { 1: ra.commitments, 9: rb.commitments }, message))).toBe(
      "invalid_signing_round",
    );
    expect(codeOf(() => frostSignShare(suite, pub, a, ra.nonces, { 1: ra.commitments, 2: "00" }, message))).toBe(
      "invalid_signing_round",
    );
    // Nonces that are not the ones behind holder 1's published commitment.
    expect(codeOf(() => frostSignShare(suite, pub, a, frostCommit(suite, pub, a).nonces, commitments, message))).toBe(
      "invalid_signing_round",
    );
    expect(codeOf(() => frostSignShare(suite, pub, a, "zz", commitments, message))).toBe("invalid_signing_round");
    expect(codeOf(() => frostAggregate(suite, pub, commitments, { 1: "00", 2: "00" }, message))).toBe("invalid_signing_round");
    // The other curve's suite.
    const other = suite === "ed25519" ? "secp256k1-bip340" : "ed25519";
    expect(codeOf(() => frostCommit(other, pub, a))).toBe("invalid_signing_suite");
  });
});

/** A legacy Solana transfer message (what the fee payer signs): header, keys, blockhash, one System transfer. */
function solanaTransferMessage(from: Uint8Array, to: Uint8Array, lamports: bigint): Uint8Array {
  const data = new Uint8Array(12);
  const view = new DataView(data.buffer);
  view.setUint32(0, 2, true); // SystemInstruction::Transfer
  view.setBigUint64(4, lamports, true);
  return Uint8Array.from([
    ...[1, 0, 1], // 1 signer, 0 read-only signed, 1 read-only unsigned (the System program)
    3, ...from, ...to, ...new Uint8Array(32), // compact-u16 count, then the keys
    ...ed25519.utils.randomSecretKey(), // recent blockhash
    1, 2, 2, 0, 1, data.length, ...data, // one instruction: program 2, accounts [0, 1], data
  ]);
}

describe("Solana with FROST", () => {
  it("a transfer from the wallet's address is signed by 2 of 3 holders and verifies under the fee payer's key", () => {
    const { public: pub, shares } = splitSecret("ed25519", newWalletSecret("ed25519"), 2, 3);
    const address = addressOf("ed25519", groupPublicKey(pub));
    const payer = base58.decode(address);
    const message = solanaTransferMessage(payer, ed25519.getPublicKey(ed25519.utils.randomSecretKey()), 1_000_000n);
    const sig = sign("ed25519", pub, [shares[0], shares[2]], message);
    // A Solana validator checks signature[0] with the first account key over the message bytes.
    expect(ed25519.verify(sig, message, message.subarray(4, 36))).toBe(true);
    expect(bytesToHex(message.subarray(4, 36))).toBe(bytesToHex(payer));
    expect(base58.encode(sig)).toMatch(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
  });

  it("an imported Solana keypair keeps its address and its signatures verify under its own public key", () => {
    const seed = ed25519.utils.randomSecretKey();
    const publicKey = ed25519.getPublicKey(seed);
    const keypair = Uint8Array.from([...seed, ...publicKey]);
    const { public: pub, shares } = splitSecret("ed25519", importedSecret("ed25519", keypair), 2, 2);
    expect(addressOf("ed25519", groupPublicKey(pub))).toBe(base58.encode(publicKey));
    const message = text("hello solana");
    expect(ed25519.verify(sign("ed25519", pub, shares, message), message, publicKey)).toBe(true);
    expect(hexToBytes(pub.commitments[0])).toEqual(publicKey);
  });
});
