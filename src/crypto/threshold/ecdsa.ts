import { secp256k1 } from "@noble/curves/secp256k1.js";
import { badRequest } from "../../errors.js";
import { combineShares, type KeyShare, type ShareSetPublic } from "./shares.js";

/**
 * ECDSA (EVM) signing with a share set. No open threshold-ECDSA protocol library fits here (GG18/CGGMP need
 * Paillier and range proofs), so the shares are combined in memory, the digest is signed, and every buffer
 * made here is zeroed before returning, whether signing succeeded or not.
 *
 * What JS can and cannot wipe: Uint8Arrays we allocate are overwritten (the combined key, the raw signature
 * bytes). BigInts are immutable and the hex strings of the shares are interned by the engine: copies of the
 * key scalar made inside noble's arithmetic and the share strings live until the garbage collector reuses
 * their memory, and may reach swap or a core dump. The window is one signing call in one process.
 */
export function signDigestWithShares(
  pub: ShareSetPublic,
  shares: KeyShare[],
  digest: Uint8Array,
): { r: string; s: string; recovery: number; signature: `0x${string}` } {
  if (pub.curve !== "secp256k1") throw badRequest("invalid_signing_suite", `ECDSA signs with secp256k1 keys, not ${pub.curve}`);
  if (!(digest instanceof Uint8Array) || digest.length !== 32) throw badRequest("invalid_digest", "an ECDSA digest is 32 bytes");
  // combineShares verifies every share (Feldman) before interpolating and checks the combined scalar against
  // the share set's key before encoding it: a key that is not the wallet's never signs, and deriving its
  // public key once more here (a quarter of a signing's CPU) would check nothing new.
  const key = combineShares(pub, shares);
  let raw: Uint8Array | undefined;
  try {
    // The digest is already the hash (keccak256 for EVM): no prehash. Deterministic nonces (RFC 6979) and
    // low-s (EIP-2) are noble's defaults; said here so that a change of defaults cannot slip through.
    raw = secp256k1.sign(digest, key, { prehash: false, lowS: true, format: "recovered" });
    const sig = secp256k1.Signature.fromBytes(raw, "recovered");
    const r = sig.r.toString(16).padStart(64, "0");
    const s = sig.s.toString(16).padStart(64, "0");
    const recovery = sig.recovery!;
    const v = (27 + recovery).toString(16).padStart(2, "0");
    return { r: `0x${r}`, s: `0x${s}`, recovery, signature: `0x${r}${s}${v}` };
  } finally {
    key.fill(0);
    raw?.fill(0);
  }
}
