import { createFROST, type FROST, type FrostPublic, type FrostSecret, type NonceCommitments } from "@noble/curves/abstract/frost.js";
import { schnorr_FROST } from "@noble/curves/secp256k1.js";
import { bytesToHex, hexToBytes } from "@noble/curves/utils.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { badRequest, unprocessable } from "../../errors.js";
import { Ed25519DecodedOnce, groupOf } from "./group.js";
import { evaluateCommitments } from "./polynomial.js";
import { verifyShare, type KeyShare, type ShareSetPublic } from "./shares.js";

/**
 * FROST (RFC 9591) two-round threshold Schnorr signing over our share sets, with noble's FROST:
 * FROST-ED25519-SHA512 (signatures a plain Ed25519 verifier accepts: Solana; see ed25519Frost) and
 * FROST-secp256k1-SHA256-TR (BIP-340 signatures under the x-only group key, untweaked). The key is never
 * reconstructed: each holder signs with its own share, the coordinator only adds signature shares.
 *
 * Mapping: a share's index i is the FROST identifier i (Identifier.fromNumber), its value is the signing
 * share as is (same scalar encoding), the Feldman commitments are FROST's VSS commitments, and each
 * holder's verifying share is Σ C_j·i^j, derived from them. Round 1 output is serialised as opaque hex:
 * `nonces` = hiding‖binding scalars (secret, use once: signing twice with one nonce pair leaks the share),
 * `commitments` = hiding‖binding points (public).
 */
export type FrostSuite = "ed25519" | "secp256k1-bip340";

/**
 * FROST-ED25519-SHA512-v1 exactly as noble's ed25519_FROST defines it (RFC 9591 section 6.1: SHA-512, H2
 * without a prefix so that signatures are RFC 8032 ones), over points that are decoded and subgroup-checked
 * once per process (Ed25519DecodedOnce). noble's suite adds a validatePoint hook that repeats the checks its
 * decoding already makes (curve equation, subgroup): left out, as it adds nothing but a second multiplication
 * by the group order per point. Pinned to the RFC's test vectors and to ed25519_FROST, byte for byte, by
 * test/crypto/threshold-frost-vectors.test.ts.
 */
const ed25519Frost = createFROST({ name: "FROST-ED25519-SHA512-v1", Point: Ed25519DecodedOnce, hash: sha512, H2: "" });

/** `decodesWithGroup`: the suite decodes points through groupOf(curve).parsePoint, and so shares its cache. */
const suites: Record<FrostSuite, { frost: FROST; curve: ShareSetPublic["curve"]; decodesWithGroup: boolean }> = {
  ed25519: { frost: ed25519Frost, curve: "ed25519", decodesWithGroup: true },
  // secp256k1 has no subgroup check to repeat (cofactor 1): noble's suite as is.
  "secp256k1-bip340": { frost: schnorr_FROST, curve: "secp256k1", decodesWithGroup: false },
};

function suiteFor(suite: FrostSuite, pub: ShareSetPublic) {
  const s = suites[suite];
  if (!s) throw badRequest("invalid_signing_suite", `unknown FROST suite ${String(suite)}`);
  if (s.curve !== pub.curve) throw badRequest("invalid_signing_suite", `FROST ${suite} cannot sign with a ${pub.curve} key`);
  return s;
}

function frostPublic(frost: FROST, pub: ShareSetPublic): FrostPublic {
  const g = groupOf(pub.curve);
  const points = pub.commitments.map((c) => g.parsePoint(c));
  const verifyingShares: Record<string, Uint8Array<ArrayBuffer>> = {};
  for (let i = 1; i <= pub.holders; i++) {
    verifyingShares[frost.Identifier.fromNumber(i)] = hexToBytes(g.encodePoint(evaluateCommitments(g, points, i)));
  }
  return {
    signers: { min: pub.threshold, max: pub.holders },
    commitments: pub.commitments.map((c) => hexToBytes(c)),
    verifyingShares,
  };
}

/** The share as FROST's secret package, after the Feldman check (a bad share never signs). */
function frostSecret(frost: FROST, pub: ShareSetPublic, share: KeyShare): FrostSecret {
  if (!verifyShare(pub, share)) {
    throw unprocessable("invalid_key_share", `share ${share.index} does not match the share set's commitments`, {
      index: share.index,
    });
  }
  return { identifier: frost.Identifier.fromNumber(share.index), signingShare: hexToBytes(share.value) };
}

/** Splits hex into two equal halves (hiding, binding). */
function halves(hex: string, bytes: number, what: string): [Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>] {
  if (typeof hex !== "string" || !/^[0-9a-f]*$/i.test(hex) || hex.length !== bytes * 4) {
    throw badRequest("invalid_signing_round", `${what} is malformed`);
  }
  const b = hexToBytes(hex);
  return [b.slice(0, bytes), b.slice(bytes)];
}

function checkHolder(pub: ShareSetPublic, index: number): void {
  if (!Number.isInteger(index) || index < 1 || index > pub.holders) {
    throw badRequest("invalid_signing_round", `signer ${index} is not a holder of this share set`);
  }
}

const pointBytes = (pub: ShareSetPublic) => (pub.curve === "secp256k1" ? 33 : 32);

function commitmentList(frost: FROST, pub: ShareSetPublic, commitments: Record<number, string>): NonceCommitments[] {
  return Object.keys(commitments)
    .map(Number)
    .sort((a, b) => a - b)
    .map((index) => {
      checkHolder(pub, index);
      const [hiding, binding] = halves(commitments[index], pointBytes(pub), `signer ${index}'s commitment`);
      return { identifier: frost.Identifier.fromNumber(index), hiding, binding };
    });
}

/**
 * Round 1: fresh nonces for one signing (kept by the signer) and their public commitments (sent to all).
 * `random` is the source of the nonces' randomness (RFC 9591 nonce_generate), the CSPRNG unless a
 * known-answer test replays the RFC's.
 */
export function frostCommit(
  suite: FrostSuite,
  pub: ShareSetPublic,
  share: KeyShare,
  random?: Parameters<FROST["commit"]>[1],
): { nonces: string; commitments: string } {
  const { frost, curve, decodesWithGroup } = suiteFor(suite, pub);
  const { nonces, commitments } = frost.commit(frostSecret(frost, pub, share), random);
  const out = {
    nonces: bytesToHex(nonces.hiding) + bytesToHex(nonces.binding),
    commitments: bytesToHex(commitments.hiding) + bytesToHex(commitments.binding),
  };
  if (decodesWithGroup) {
    // Both are nonce·G, just computed: round two and the aggregation here will decode them without a subgroup check.
    groupOf(curve).rememberMultipleOfBase(bytesToHex(commitments.hiding));
    groupOf(curve).rememberMultipleOfBase(bytesToHex(commitments.binding));
  }
  nonces.hiding.fill(0);
  nonces.binding.fill(0);
  return out;
}

/** Round 2: this holder's signature share of `message`, given every signer's round-1 commitments. */
export function frostSignShare(
  suite: FrostSuite,
  pub: ShareSetPublic,
  share: KeyShare,
  nonces: string,
  commitments: Record<number, string>,
  message: Uint8Array,
): string {
  const { frost } = suiteFor(suite, pub);
  const secret = frostSecret(frost, pub, share);
  const [hiding, binding] = halves(nonces, 32, "the nonces");
  const list = commitmentList(frost, pub, commitments);
  try {
    return bytesToHex(frost.signShare(secret, frostPublic(frost, pub), { hiding, binding }, list, message));
  } catch (e) {
    // Too few signers, our commitment missing or not matching our nonces, a malformed point.
    throw unprocessable("invalid_signing_round", `cannot sign: ${(e as Error).message}`);
  } finally {
    secret.signingShare.fill(0);
    hiding.fill(0);
    binding.fill(0);
  }
}

/** Adds the signature shares into one standard signature (Ed25519: R‖S, 64 bytes; BIP-340: 64 bytes). */
export function frostAggregate(
  suite: FrostSuite,
  pub: ShareSetPublic,
  commitments: Record<number, string>,
  signatureShares: Record<number, string>,
  message: Uint8Array,
): Uint8Array {
  const { frost } = suiteFor(suite, pub);
  const list = commitmentList(frost, pub, commitments);
  const sigShares: Record<string, Uint8Array> = {};
  for (const [index, hex] of Object.entries(signatureShares)) {
    checkHolder(pub, Number(index));
    if (typeof hex !== "string" || !/^[0-9a-f]{64}$/i.test(hex)) throw badRequest("invalid_signing_round", `signature share ${index} is malformed`);
    sigShares[frost.Identifier.fromNumber(Number(index))] = hexToBytes(hex);
  }
  try {
    return frost.aggregate(frostPublic(frost, pub), list, message, sigShares);
  } catch (e) {
    // noble checks the result and names the signers whose shares did not verify (RFC 9591 5.4).
    const cheaters = ((e as { cheaters?: string[] }).cheaters ?? []).map((id) =>
      Object.keys(signatureShares).find((i) => frost.Identifier.fromNumber(Number(i)) === id),
    );
    throw unprocessable("invalid_signature_share", "the signature shares do not add up to a valid signature", {
      signers: cheaters,
    });
  }
}
