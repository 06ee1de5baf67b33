import { secp256k1 } from "@noble/curves/secp256k1.js";
import { hexToBytes, keccak256, type Hex } from "viem";
import { libsecp256k1 } from "./libsecp256k1.js";

/**
 * Public-key recovery on secp256k1 (the check behind an EVM wallet's signature): libsecp256k1
 * (./libsecp256k1.ts), about 25 times faster than noble's pure JS (~90 µs against
 * ~2.3 ms a recovery on the reference box), which made it a third of a wallet sign-in's CPU. Where no
 * prebuilt binary fits the platform (its tarball carries linux-x64, darwin-arm64 and win32-x64), noble
 * recovers instead: the same answers, slower. Both accept and refuse the same signatures (r and s in
 * [1, n-1], high s included, as viem does; v 0, 1, 27 or 28), which test/crypto/secp256k1-recover.test.ts
 * holds them to.
 */

type Recover = (compact: Uint8Array, recoveryBit: 0 | 1, digest: Uint8Array) => Uint8Array;

const N = secp256k1.Point.CURVE().n;

const nobleRecover: Recover = (compact, recoveryBit, digest) =>
  secp256k1.Signature.fromBytes(compact, "compact").addRecoveryBit(recoveryBit).recoverPublicKey(digest).toBytes(false);

const native = libsecp256k1;
const loaded: { backend: "libsecp256k1" | "noble"; recover: Recover } = native
  ? { backend: "libsecp256k1", recover: (compact, recoveryBit, digest) => native.ecdsaRecover(compact, recoveryBit, digest, false) }
  : { backend: "noble", recover: nobleRecover };

/** Which implementation recovers in this process (the bench reports it). */
export const secp256k1Backend = loaded.backend;

/** viem's reading of the last byte: a recovery bit, bare (0, 1) or as pre-EIP-155 v (27, 28). */
function recoveryBitOf(v: number): 0 | 1 {
  if (v === 0 || v === 27) return 0;
  if (v === 1 || v === 28) return 1;
  throw new Error("invalid signature: v must be 0, 1, 27 or 28");
}

const inRange = (b: Uint8Array) => {
  const x = BigInt(`0x${Buffer.from(b).toString("hex")}`);
  return x > 0n && x < N;
};

/**
 * The address (lowercase 0x hex) whose key made `signature` (65 bytes r‖s‖v) over the 32-byte `digest`.
 * Throws for a signature no key made: r or s out of range, v not a recovery bit, no point with that r.
 */
export const recoverAddress = (digest: Hex, signature: Hex): Hex => recoverWith(loaded.recover, digest, signature);

/** The same with noble alone, whatever this process loaded: the reference the native path is checked against. */
export const recoverAddressWithNoble = (digest: Hex, signature: Hex): Hex => recoverWith(nobleRecover, digest, signature);

function recoverWith(recover: Recover, digest: Hex, signature: Hex): Hex {
  const sig = hexToBytes(signature);
  const hash = hexToBytes(digest);
  if (sig.length !== 65 || hash.length !== 32) throw new Error("invalid signature: 65 bytes over a 32-byte digest");
  const compact = sig.subarray(0, 64);
  if (!inRange(compact.subarray(0, 32)) || !inRange(compact.subarray(32))) throw new Error("invalid signature: r and s must be in [1, n-1]");
  const publicKey = recover(compact, recoveryBitOf(sig[64]), hash);
  return `0x${keccak256(publicKey.subarray(1)).slice(-40)}`;
}
