import type { IField } from "@noble/curves/abstract/modular.js";
import { getMinHashLength, mapHashToField } from "@noble/curves/abstract/modular.js";
import { ed25519 } from "@noble/curves/ed25519.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex, hexToBytes, randomBytes } from "@noble/curves/utils.js";
import { libsecp256k1, type Libsecp256k1 } from "../libsecp256k1.js";

/**
 * The prime-order group of each threshold curve, behind one small interface so that Shamir, Feldman and
 * Lagrange are written once. Scalars travel as the curve's canonical encoding (`Fn.toBytes`): big-endian
 * for secp256k1, little-endian for ed25519 (RFC 8032, and what noble's FROST ciphersuites expect), so a
 * share's bytes are exactly a FROST signing share.
 */
export type ThresholdCurve = "secp256k1" | "ed25519";

/** The operations Shamir/Feldman need, shared by noble's Weierstrass and Edwards points. */
export interface GroupPoint {
  add(other: GroupPoint): GroupPoint;
  /** Constant-time: for secret scalars. */
  multiply(k: bigint): GroupPoint;
  /** Variable-time: public scalars only (indexes, commitments). */
  multiplyUnsafe(k: bigint): GroupPoint;
  equals(other: GroupPoint): boolean;
}

export interface Group {
  curve: ThresholdCurve;
  Fn: IField<bigint>;
  base: GroupPoint;
  /** Decodes a commitment or public key; throws on anything not a valid non-identity prime-order point. */
  parsePoint(hex: string): GroupPoint;
  /**
   * Keeps a point this process has just computed as k·G (a FROST nonce commitment) as parsePoint would:
   * a multiple of the base point is in the prime-order subgroup by construction, so the subgroup check
   * that parsing it again would make is skipped. Never for points that come from outside.
   */
  rememberMultipleOfBase(hex: string): void;
  /** Compressed SEC1 (33 bytes) for secp256k1, RFC 8032 (32 bytes) for ed25519. */
  encodePoint(p: GroupPoint): string;
}

/** Every point that parsePoint has kept: it passed the checks (curve equation, not the identity, prime-order subgroup). */
const validated = new WeakSet<object>();

/**
 * ed25519 points as the threshold code decodes them: through parsePoint, so each distinct encoding is decoded
 * and checked once per process. The subgroup check is a multiplication by the group order (~1.3 ms), and one
 * FROST signing decodes the group key and every signer's commitments again in each signer's round two and in
 * the aggregation: checked afresh each time, that would be most of a signing's CPU. noble's FROST decodes with
 * `Point.fromBytes` and then checks `isTorsionFree()`, so a suite built on this class gets the cached points
 * and skips the repeated check, and still runs every check on an encoding it has not seen. (Its group
 * commitment MSM takes only points of the suite's class: the decoded ones, which are.)
 */
export class Ed25519DecodedOnce extends ed25519.Point {
  static override fromBytes(bytes: Uint8Array, zip215 = false): Ed25519DecodedOnce {
    // ZIP-215 decoding accepts other encodings: not ours, never cached.
    if (zip215) return Ed25519DecodedOnce.from(ed25519.Point.fromBytes(bytes, true));
    return groupOf("ed25519").parsePoint(bytesToHex(bytes)) as Ed25519DecodedOnce;
  }

  static from(p: { X: bigint; Y: bigint; Z: bigint; T: bigint }): Ed25519DecodedOnce {
    return new Ed25519DecodedOnce(p.X, p.Y, p.Z, p.T);
  }

  override isTorsionFree(): boolean {
    return validated.has(this) || super.isTorsionFree();
  }
}

type DecodedPoint = GroupPoint & { assertValidity(): void; is0(): boolean; isTorsionFree(): boolean };

/**
 * secp256k1's base point with k·G made by libsecp256k1 (constant-time there too, ~25 µs against ~0.6 ms in
 * noble) and read back into a noble point from its uncompressed encoding (no square root; the curve equation
 * is checked): what a Feldman check, a deal and a signature spend most of their time on. Adding and
 * comparing stay noble's. As noble's, it refuses k outside [1, n-1].
 */
function nativeSecp256k1Base(native: Libsecp256k1): GroupPoint {
  const G = secp256k1.Point.BASE as unknown as GroupPoint;
  const times = (k: bigint): GroupPoint => {
    const bytes = secp256k1.Point.Fn.toBytes(k);
    try {
      return secp256k1.Point.fromBytes(native.publicKeyCreate(bytes, false)) as unknown as GroupPoint;
    } finally {
      bytes.fill(0);
    }
  };
  return { add: (p) => G.add(p), multiply: times, multiplyUnsafe: times, equals: (p) => G.equals(p) };
}

function makeGroup(curve: ThresholdCurve): Group {
  // Both noble point classes have these methods; the casts only unify their nominal types.
  const Point = (curve === "secp256k1" ? secp256k1.Point : ed25519.Point) as unknown as {
    BASE: GroupPoint;
    Fn: IField<bigint>;
    fromBytes(b: Uint8Array): DecodedPoint;
  };
  const decode = (bytes: Uint8Array): DecodedPoint =>
    curve === "ed25519" ? (Ed25519DecodedOnce.from(ed25519.Point.fromBytes(bytes)) as unknown as DecodedPoint) : Point.fromBytes(bytes);
  // The same commitments are decoded at every step of a signing, so decoded points are kept (public data
  // only, bounded). Only points that passed every check are kept: a bad encoding is checked, and refused, each time.
  const parsed = new Map<string, GroupPoint>();
  const keep = (key: string, p: DecodedPoint) => {
    validated.add(p);
    if (parsed.size >= 4096) parsed.clear();
    parsed.set(key, p);
    return p;
  };
  const decodeChecked = (hex: string, subgroupKnown: boolean): DecodedPoint => {
    const bytes = hexToBytes(hex);
    if (bytes.length !== (curve === "secp256k1" ? 33 : 32)) throw new Error("bad point length");
    const p = decode(bytes);
    p.assertValidity();
    // The identity and (ed25519) small-order points would make a commitment or key meaningless.
    if (p.is0() || !(subgroupKnown || p.isTorsionFree())) throw new Error("bad point: identity or not in the prime-order subgroup");
    return p;
  };
  return {
    curve,
    Fn: Point.Fn,
    base: curve === "secp256k1" && libsecp256k1 ? nativeSecp256k1Base(libsecp256k1) : Point.BASE,
    parsePoint(hex) {
      const key = hex.toLowerCase();
      return parsed.get(key) ?? keep(key, decodeChecked(hex, false));
    },
    rememberMultipleOfBase(hex) {
      const key = hex.toLowerCase();
      if (!parsed.has(key)) keep(key, decodeChecked(hex, true));
    },
    encodePoint(p) {
      const bytes = (p as unknown as { toBytes(compressed?: boolean): Uint8Array }).toBytes(true);
      return bytesToHex(bytes);
    },
  };
}

const groups: Record<ThresholdCurve, Group> = { secp256k1: makeGroup("secp256k1"), ed25519: makeGroup("ed25519") };

export function groupOf(curve: ThresholdCurve): Group {
  const g = groups[curve];
  if (!g) throw new Error(`unknown curve ${String(curve)}`);
  return g;
}

/**
 * A uniformly random non-zero scalar from noble's CSPRNG (crypto.getRandomValues): 48 random bytes reduced
 * into [1, n-1] (FIPS 186-5 A.4.1), so the bias is negligible.
 */
export function randomScalar(g: Group): bigint {
  const bytes = mapHashToField(randomBytes(getMinHashLength(g.Fn.ORDER)), g.Fn.ORDER, g.Fn.isLE);
  const k = g.Fn.fromBytes(bytes);
  bytes.fill(0);
  return k;
}

/** Decodes a canonical 32-byte scalar from hex; throws if malformed or out of range. */
export function parseScalar(g: Group, hex: string): bigint {
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error("scalar must be 32 bytes of hex");
  return g.Fn.fromBytes(hexToBytes(hex));
}

export const scalarHex = (g: Group, k: bigint) => bytesToHex(g.Fn.toBytes(k));
