import { secp256k1 } from "@noble/curves/secp256k1.js";
import { badRequest } from "../../errors.js";
import { libsecp256k1 } from "../libsecp256k1.js";
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
    // libsecp256k1 signs the same way (RFC 6979, low s) and gives the same bytes, 20 times faster; noble
    // where the native binary is missing.
    let recovery: number;
    if (libsecp256k1) {
      const made = libsecp256k1.ecdsaSign(digest, key);
      raw = made.signature;
      recovery = made.recid;
    } else {
      const recovered = secp256k1.sign(digest, key, { prehash: false, lowS: true, format: "recovered" });
      recovery = secp256k1.Signature.fromBytes(recovered, "recovered").recovery!;
      raw = recovered.subarray(1);
    }
    const r = Buffer.from(raw.subarray(0, 32)).toString("hex");
    const s = Buffer.from(raw.subarray(32, 64)).toString("hex");
    const v = (27 + recovery).toString(16).padStart(2, "0");
    return { r: `0x${r}`, s: `0x${s}`, recovery, signature: `0x${r}${s}${v}` };
  } finally {
    key.fill(0);
    raw?.fill(0);
  }
}
