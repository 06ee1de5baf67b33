import { ed25519 } from "@noble/curves/ed25519.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { base58 } from "@scure/base";
import { bytesToHex, publicKeyToAddress } from "viem/utils";
import { privateKeyToAccount } from "viem/accounts";
import type { Sealer } from "./seal.js";

/**
 * Key material of wallets the service holds (pregenerated embedded wallets, WaaS wallets). Keys come from
 * @noble/curves' CSPRNG-backed generators; the address is derived from the public key, never chosen.
 * Private keys exist in clear only in memory: at rest they are sealed (src/crypto/seal.ts) and bound by
 * associated data to the row that owns them.
 */
export type KeyFamily = "evm" | "solana";

export interface WalletKey {
  family: KeyFamily;
  /** Checksummed 0x address (EVM) or base58 public key (Solana). */
  address: string;
  /** Hex public key: uncompressed secp256k1 (0x04...) or raw ed25519. */
  publicKey: string;
  privateKey: Uint8Array;
}

/** Chain names and CAIP-2 namespaces of each key family. */
export function keyFamilyOf(chain: string): KeyFamily | null {
  const c = chain.toLowerCase();
  if (c === "evm" || c === "eth" || c.startsWith("eip155")) return "evm";
  if (c === "sol" || c === "solana" || c.startsWith("solana")) return "solana";
  return null;
}

export function generateWalletKey(family: KeyFamily): WalletKey {
  if (family === "evm") {
    const sk = secp256k1.utils.randomSecretKey();
    const pk = bytesToHex(secp256k1.getPublicKey(sk, false));
    return { family, address: publicKeyToAddress(pk), publicKey: pk, privateKey: sk };
  }
  const sk = ed25519.utils.randomSecretKey();
  const pk = ed25519.getPublicKey(sk);
  return { family, address: base58.encode(pk), publicKey: bytesToHex(pk), privateKey: sk };
}

/** The associated data that binds a sealed private key to its owner row (e.g. `wallet:<id>`). */
export const walletKeyAad = (owner: string) => `${owner}:private_key`;

export function sealWalletKey(sealer: Sealer, key: WalletKey, owner: string): string {
  return sealer.seal(Buffer.from(key.privateKey).toString("hex"), walletKeyAad(owner));
}

export function openWalletKey(sealer: Sealer, sealed: string, owner: string): Uint8Array {
  return Uint8Array.from(Buffer.from(sealer.open(sealed, walletKeyAad(owner)), "hex"));
}

/** EIP-191 personal_sign of a message with an EVM key (what wallets show as "Sign message"). */
export async function signEvmMessage(privateKey: Uint8Array, message: string): Promise<`0x${string}`> {
  return privateKeyToAccount(bytesToHex(privateKey)).signMessage({ message });
}

/** Ed25519 signature of a UTF-8 message with a Solana key, base58-encoded as Solana wallets return it. */
export function signSolanaMessage(privateKey: Uint8Array, message: string): string {
  return base58.encode(ed25519.sign(new TextEncoder().encode(message), privateKey));
}
