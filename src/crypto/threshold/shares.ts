import { hexToBytes } from "@noble/curves/utils.js";
import { badRequest, unprocessable } from "../../errors.js";
import { groupOf, parseScalar, randomScalar, scalarHex, type Group, type GroupPoint, type ThresholdCurve } from "./group.js";
import { evaluate, evaluateCommitments, lagrangeAtZero, randomPolynomial } from "./polynomial.js";

/**
 * Shamir secret sharing of a wallet's key over the curve's scalar field, with Feldman commitments so that
 * every holder can check its own share against public data, and with refresh (same key, new polynomial)
 * and reshare (same key, new threshold/holders). Pure functions: no storage, no transport.
 *
 * Scalars (secrets and share values) use the curve's canonical encoding: big-endian for secp256k1,
 * little-endian for ed25519 (see group.ts); a share is then byte-for-byte a FROST signing share.
 * JS cannot wipe bigints or the strings made from them: the secret values live in the heap until collected.
 * Callers wipe the Uint8Arrays they get back (combineShares) once used.
 */
export type { ThresholdCurve };

/** Public part of a share set (Feldman VSS): commitments[i] = a_i·G (hex, compressed for secp256k1, 32-byte
 *  for ed25519); commitments[0] is the group public key. */
export interface ShareSetPublic {
  curve: ThresholdCurve;
  threshold: number;
  holders: number;
  commitments: string[];
}

export interface KeyShare {
  /** 1..holders */
  index: number;
  /** hex scalar, 32 bytes */
  value: string;
}

/** The threshold schemes of the spec (ThresholdSignatureScheme): user device + server, + backup, 3-of-5. */
export const SCHEMES = {
  TWO_OF_TWO: { threshold: 2, holders: 2 },
  TWO_OF_THREE: { threshold: 2, holders: 3 },
  THREE_OF_FIVE: { threshold: 3, holders: 5 },
} as const;

/** Far above the spec's schemes; bounds the work a crafted ShareSetPublic can ask for. */
const MAX_HOLDERS = 32;

function checkScheme(threshold: number, holders: number): void {
  // A threshold of 1 would make every share the whole key: not a threshold scheme.
  const ok =
    Number.isInteger(threshold) && Number.isInteger(holders) && threshold >= 2 && threshold <= holders && holders <= MAX_HOLDERS;
  if (!ok) {
    throw badRequest("invalid_threshold_scheme", `a threshold scheme needs 2 <= threshold <= holders <= ${MAX_HOLDERS}`, {
      threshold,
      holders,
    });
  }
}

/** The group and decoded commitments of a share set; throws when the public part is malformed. */
function parsePublic(pub: ShareSetPublic): { g: Group; commitments: GroupPoint[] } {
  checkScheme(pub.threshold, pub.holders);
  const g = groupOf(pub.curve);
  if (!Array.isArray(pub.commitments) || pub.commitments.length !== pub.threshold) {
    throw unprocessable("invalid_share_set", "a share set has exactly `threshold` commitments");
  }
  try {
    return { g, commitments: pub.commitments.map((c) => g.parsePoint(c)) };
  } catch {
    throw unprocessable("invalid_share_set", "a share set commitment is not a valid curve point");
  }
}

function publicOf(pub: { curve: ThresholdCurve; threshold: number; holders: number }, g: Group, points: GroupPoint[]): ShareSetPublic {
  return { curve: pub.curve, threshold: pub.threshold, holders: pub.holders, commitments: points.map((p) => g.encodePoint(p)) };
}

/** Deals shares 1..holders of f, with f(0) the secret; the commitments go with them. */
function deal(g: Group, coefficients: bigint[], holders: number): { points: GroupPoint[]; shares: KeyShare[] } {
  const points = coefficients.map((a) => g.base.multiply(a));
  const shares: KeyShare[] = [];
  for (let i = 1; i <= holders; i++) shares.push({ index: i, value: scalarHex(g, evaluate(g, coefficients, i)) });
  return { points, shares };
}

export function splitSecret(
  curve: ThresholdCurve,
  secret: Uint8Array,
  threshold: number,
  holders: number,
): { public: ShareSetPublic; shares: KeyShare[] } {
  checkScheme(threshold, holders);
  const g = groupOf(curve);
  let s: bigint;
  try {
    s = g.Fn.fromBytes(secret);
  } catch {
    throw badRequest("invalid_private_key", `a ${curve} secret is a 32-byte scalar below the group order`);
  }
  if (g.Fn.is0(s)) throw badRequest("invalid_private_key", "the secret scalar is zero");
  const { points, shares } = deal(g, randomPolynomial(s, threshold, () => randomScalar(g)), holders);
  return { public: publicOf({ curve, threshold, holders }, g, points), shares };
}

/** Feldman check: share.value·G equals Σ C_j·index^j. False on any malformed input, never throws. */
export function verifyShare(pub: ShareSetPublic, share: KeyShare): boolean {
  try {
    const { g, commitments } = parsePublic(pub);
    if (!Number.isInteger(share.index) || share.index < 1 || share.index > pub.holders) return false;
    const value = parseScalar(g, share.value);
    if (g.Fn.is0(value)) return false;
    return g.base.multiply(value).equals(evaluateCommitments(g, commitments, share.index));
  } catch {
    return false;
  }
}

/** Checks a set of shares: each verifies, no index twice, at least `minimum` of them. Returns their scalars. */
function checkedShares(pub: ShareSetPublic, shares: KeyShare[], minimum: number): Map<number, bigint> {
  const g = groupOf(pub.curve);
  const byIndex = new Map<number, bigint>();
  for (const share of shares) {
    if (byIndex.has(share.index)) throw badRequest("duplicate_key_share", `share ${share.index} was given twice`, { index: share.index });
    if (!verifyShare(pub, share)) {
      throw unprocessable("invalid_key_share", `share ${share.index} does not match the share set's commitments`, {
        index: share.index,
      });
    }
    byIndex.set(share.index, parseScalar(g, share.value));
  }
  if (byIndex.size < minimum) {
    throw unprocessable("not_enough_key_shares", `${minimum} shares are needed, ${byIndex.size} were given`, {
      needed: minimum,
      given: byIndex.size,
    });
  }
  return byIndex;
}

/** Lagrange interpolation at 0 of verified shares; checked against the group key before it is returned. */
export function combineShares(pub: ShareSetPublic, shares: KeyShare[]): Uint8Array {
  const { g, commitments } = parsePublic(pub);
  const byIndex = checkedShares(pub, shares, pub.threshold);
  const indexes = [...byIndex.keys()];
  let secret = g.Fn.ZERO;
  for (const [i, value] of byIndex) secret = g.Fn.add(secret, g.Fn.mul(lagrangeAtZero(g, indexes, i), value));
  // Verified shares always interpolate to the key; this guards against a bug here rather than bad input.
  if (g.Fn.is0(secret) || !g.base.multiply(secret).equals(commitments[0])) {
    throw unprocessable("invalid_share_set", "the shares do not combine into the share set's key");
  }
  return g.Fn.toBytes(secret);
}

/**
 * Proactive refresh: every share gets δ(index) added, where δ is a random polynomial with δ(0) = 0. The key
 * (f + δ)(0) and so the address do not change, the commitments C_j (j ≥ 1) become C_j + D_j, and an old
 * share mixed with new ones interpolates to garbage: shares leaked before a refresh are useless after it.
 * The key is never reconstructed. Needs every holder's share, since a holder left out would keep an old one.
 */
export function refreshShares(pub: ShareSetPublic, shares: KeyShare[]): { public: ShareSetPublic; shares: KeyShare[] } {
  const { g, commitments } = parsePublic(pub);
  const byIndex = checkedShares(pub, shares, pub.holders);
  const delta = randomPolynomial(g.Fn.ZERO, pub.threshold, () => randomScalar(g));
  const points = commitments.map((c, j) => (j === 0 ? c : c.add(g.base.multiply(delta[j]))));
  const refreshed: KeyShare[] = [];
  for (let i = 1; i <= pub.holders; i++) {
    refreshed.push({ index: i, value: scalarHex(g, g.Fn.add(byIndex.get(i)!, evaluate(g, delta, i))) });
  }
  return { public: publicOf(pub, g, points), shares: refreshed };
}

/**
 * Reshare into a new (threshold, holders) scheme with the same key. Each of `threshold` old holders re-deals
 * its Lagrange-weighted share λ_i·s_i with a fresh polynomial of the new degree; a new holder's share is the
 * sum of what it receives, and the new commitments are the sums of the sub-dealings' commitments. Σ λ_i·s_i
 * is the key, so the group key is unchanged, but no single value computed here equals it: the key is never
 * reconstructed. Old shares do not verify against the new commitments.
 */
export function reshareSecret(
  pub: ShareSetPublic,
  shares: KeyShare[],
  threshold: number,
  holders: number,
): { public: ShareSetPublic; shares: KeyShare[] } {
  checkScheme(threshold, holders);
  const { g, commitments } = parsePublic(pub);
  const byIndex = checkedShares(pub, shares, pub.threshold);
  // Exactly `threshold` dealers: more would add work and nothing else.
  const dealers = [...byIndex.keys()].sort((a, b) => a - b).slice(0, pub.threshold);
  let points: GroupPoint[] | undefined;
  const sums = Array.from({ length: holders }, () => g.Fn.ZERO);
  for (const i of dealers) {
    const weighted = g.Fn.mul(lagrangeAtZero(g, dealers, i), byIndex.get(i)!);
    const sub = deal(g, randomPolynomial(weighted, threshold, () => randomScalar(g)), holders);
    points = points ? points.map((p, j) => p.add(sub.points[j])) : sub.points;
    sub.shares.forEach((s, k) => (sums[k] = g.Fn.add(sums[k], parseScalar(g, s.value))));
  }
  if (!points![0].equals(commitments[0])) throw unprocessable("invalid_share_set", "reshare changed the group key");
  return {
    public: publicOf({ curve: pub.curve, threshold, holders }, g, points!),
    shares: sums.map((v, k) => ({ index: k + 1, value: scalarHex(g, v) })),
  };
}

/** The group public key, commitments[0]: compressed SEC1 for secp256k1, 32 bytes for ed25519. */
export function groupPublicKey(pub: ShareSetPublic): Uint8Array {
  const { g, commitments } = parsePublic(pub);
  return hexToBytes(g.encodePoint(commitments[0]));
}
