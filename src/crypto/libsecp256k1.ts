import { createRequire } from "node:module";

/**
 * libsecp256k1 through the `secp256k1` package's prebuilt N-API binary (its tarball carries linux-x64,
 * darwin-arm64 and win32-x64; `npm ci` compiles nothing). Native, its operations are 20-50 times faster
 * than noble's pure JS on the reference box: a base-point multiplication ~25 µs against ~0.6 ms, a
 * multiplication of another point ~60 µs against ~1.5 ms, a signature ~40 µs against ~0.8 ms. Null where no
 * prebuilt binary fits the platform: every caller then does the same with noble, with the same answers
 * (test/crypto/libsecp256k1.test.ts and the recovery tests hold the two to each other).
 */
export interface Libsecp256k1 {
  /** seckey·G, SEC1 (compressed by default); throws for a key outside [1, n-1]. */
  publicKeyCreate(seckey: Uint8Array, compressed?: boolean): Uint8Array;
  /** tweak·P; throws for a point off the curve or a tweak outside [1, n-1]. */
  publicKeyTweakMul(pubkey: Uint8Array, tweak: Uint8Array, compressed?: boolean): Uint8Array;
  /** ΣP; throws when the sum is the point at infinity. */
  publicKeyCombine(pubkeys: Uint8Array[], compressed?: boolean): Uint8Array;
  /** RFC 6979 deterministic nonce, low s (as noble with lowS): the same signature noble makes. */
  ecdsaSign(msg32: Uint8Array, seckey: Uint8Array): { signature: Uint8Array; recid: number };
  ecdsaRecover(signature: Uint8Array, recid: number, msg32: Uint8Array, compressed?: boolean): Uint8Array;
}

function load(): Libsecp256k1 | null {
  try {
    // The package's native entry: its main module would fall back to a pure-JS curve of its own; this one throws.
    return createRequire(import.meta.url)("secp256k1/bindings.js") as Libsecp256k1;
  } catch {
    return null;
  }
}

/** libsecp256k1 in this process, or null (noble then). */
export const libsecp256k1: Libsecp256k1 | null = load();
