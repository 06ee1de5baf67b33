import { ed25519 } from "@noble/curves/ed25519.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex, equalBytes } from "@noble/curves/utils.js";
import { base58 } from "@scure/base";
import { publicKeyToAddress } from "viem/utils";
import { badRequest } from "../../errors.js";
import { groupOf, randomScalar, type ThresholdCurve } from "./group.js";

/**
 * What a wallet's secret is, per curve, in the encoding splitSecret takes.
 *
 * secp256k1 (EVM): the ordinary 32-byte big-endian private key.
 *
 * ed25519 (Solana): the secret SCALAR a (32 bytes, little-endian, reduced mod L), not an RFC 8032 seed. A seed
 * becomes the key only through SHA-512 and clamping, which no share of it survives, so a seed cannot be split
 * into shares that sign without rebuilding it; the scalar can (FROST signs with shares of a). Consequences:
 * - export gives the scalar (with the public key, an "expanded" Ed25519 key), not a seed: wallets that only
 *   import 32-byte seeds or Solana's 64-byte seed‖public keypair cannot take it, tools that accept an
 *   expanded key can; signatures made with it are ordinary Ed25519 signatures for the same address.
 * - importing a seed (or a Solana keypair) hashes and clamps it to its scalar (importedSecret), then splits
 *   that: same address, but the seed itself is never stored, and export will not give it back.
 */
export function newWalletSecret(curve: ThresholdCurve): Uint8Array {
  const g = groupOf(curve);
  return g.Fn.toBytes(randomScalar(g));
}

/** EVM: EIP-55 checksummed address of the key; Solana: base58 of the 32-byte public key. */
export function addressOf(curve: ThresholdCurve, groupPublicKey: Uint8Array): string {
  const g = groupOf(curve);
  // Parsing rejects anything that is not a valid key of this curve, so no address is made of garbage.
  const point = g.parsePoint(bytesToHex(groupPublicKey));
  if (curve === "ed25519") return base58.encode(groupPublicKey);
  const uncompressed = secp256k1.Point.fromHex(g.encodePoint(point)).toBytes(false);
  return publicKeyToAddress(`0x${bytesToHex(uncompressed)}`);
}

/**
 * The secret to split for an imported private key (importPrivateKey). secp256k1: a 32-byte key in range.
 * ed25519: a 32-byte seed, or Solana's 64-byte keypair (seed‖public key, whose halves must match), turned
 * into its scalar as RFC 8032 does (SHA-512, clamp, reduce mod L). Bad input is a 400, the key not echoed.
 */
export function importedSecret(curve: ThresholdCurve, privateKey: Uint8Array): Uint8Array {
  if (!(privateKey instanceof Uint8Array)) throw badRequest("invalid_private_key", "the private key must be bytes");
  if (curve === "secp256k1") {
    if (privateKey.length !== 32 || !secp256k1.utils.isValidSecretKey(privateKey)) {
      throw badRequest("invalid_private_key", "an EVM private key is 32 bytes, non-zero and below the curve order");
    }
    return Uint8Array.from(privateKey);
  }
  if (curve !== "ed25519") throw badRequest("invalid_private_key", `unknown curve ${String(curve)}`);
  if (privateKey.length !== 32 && privateKey.length !== 64) {
    throw badRequest("invalid_private_key", "a Solana private key is a 32-byte seed or a 64-byte keypair");
  }
  const seed = privateKey.subarray(0, 32);
  const { head, prefix, scalar, pointBytes } = ed25519.utils.getExtendedPublicKey(seed);
  try {
    if (privateKey.length === 64 && !equalBytes(pointBytes, privateKey.subarray(32))) {
      throw badRequest("invalid_private_key", "the keypair's public half does not belong to its secret half");
    }
    return groupOf("ed25519").Fn.toBytes(scalar);
  } finally {
    head.fill(0);
    prefix.fill(0);
  }
}
