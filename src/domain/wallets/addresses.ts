import { base32nopad, base58, base64, base64url, bech32, bech32m, createBase58check } from "@scure/base";
import { sha256, sha512_256 } from "@noble/hashes/sha2.js";
import crc16xmodem from "crc/crc16xmodem";
import { getAddress, isAddress } from "viem";
import { badRequest } from "../../errors.js";

/**
 * Validation of wallet addresses per chain (the spec's ChainEnum), returning the one canonical form to store so
 * that the same wallet always compares equal. Checksums are verified wherever the format has one: an address
 * that only looks right is a typo that would send funds or link an identity to nobody's wallet.
 */

export const CHAINS = [
  "ETH", "EVM", "FLOW", "SOL", "ALGO", "STARK", "COSMOS", "BTC", "ECLIPSE", "SUI", "SPARK", "TRON", "APTOS", "TON",
] as const;
export type Chain = (typeof CHAINS)[number];

/** ETH is the older name of the EVM family: wallets may be stored, and clients may ask, under either name. */
export const chainAliases = (chain: string): string[] => (chain === "ETH" || chain === "EVM" ? ["EVM", "ETH"] : [chain]);

/** The CAIP-2 namespaces whose addresses we can validate, and the chain family that validates them. */
export const CAIP2_NAMESPACE_CHAINS: Readonly<Record<string, Chain>> = { eip155: "EVM", solana: "SOL" };

/** The chain family a CAIP-2 chain id belongs to (EVM or SOL); "" for another namespace. */
export function chainFamilyOf(caip2: string): string {
  return CAIP2_NAMESPACE_CHAINS[caip2.split(":")[0] ?? ""] ?? "";
}

/** Returns the canonical form of `address`, or null when it is not valid for the chain. May also throw. */
type Normalizer = (address: string) => string | null;

// Far above the longest real address (Spark, ~70-90 chars); stops pathological input before any decoding.
const MAX_ADDRESS_CHARS = 256;

const base58check = createBase58check(sha256);

const HEX_0X = /^0x[0-9a-fA-F]+$/;

/**
 * EIP-55: all-lower or all-upper hex carries no checksum; mixed case must be the exact checksum. The one EVM
 * address check of every path (wallets, WaaS policy rules, what a threshold wallet signs): it answers the
 * checksummed form, which is what viem's serializers accept.
 */
export function canonicalEvmAddress(address: string): string | null {
  if (!HEX_0X.test(address)) return null;
  const hex = address.slice(2);
  const carriesChecksum = hex !== hex.toLowerCase() && hex !== hex.toUpperCase();
  if (!isAddress(address, { strict: carriesChecksum })) return null;
  return getAddress(address);
}

function flow(address: string): string | null {
  return /^0x[0-9a-fA-F]{16}$/.test(address) ? address.toLowerCase() : null;
}

/** Solana and Eclipse (an SVM chain): an ed25519 public key in base58. */
function solana(address: string): string | null {
  const bytes = base58.decode(address);
  return bytes.length === 32 ? base58.encode(bytes) : null;
}

/** Algorand: base32(pubkey(32) || last 4 bytes of SHA-512/256(pubkey)), 58 characters without padding. */
function algorand(address: string): string | null {
  if (address.length !== 58) return null;
  // Algorand writes addresses in upper case; lower case is the same address, so accept and canonicalise it.
  const bytes = base32nopad.decode(address.toUpperCase());
  if (bytes.length !== 36) return null;
  const publicKey = bytes.subarray(0, 32);
  const expected = sha512_256(publicKey).subarray(-4);
  if (!equalBytes(bytes.subarray(32), expected)) return null;
  return base32nopad.encode(bytes);
}

// Starknet's field prime: addresses are field elements.
const STARK_PRIME = 2n ** 251n + 17n * 2n ** 192n + 1n;

function starknet(address: string): string | null {
  if (!/^0x[0-9a-fA-F]{1,64}$/.test(address)) return null;
  const value = BigInt(address);
  if (value >= STARK_PRIME) return null;
  return "0x" + value.toString(16).padStart(64, "0");
}

/** Cosmos SDK chains: bech32 with the chain's own prefix over a 20-byte account or 32-byte module/ICA address. */
function cosmos(address: string): string | null {
  const { prefix, words } = bech32.decode(address);
  const bytes = bech32.fromWordsUnsafe(words);
  if (!bytes || (bytes.length !== 20 && bytes.length !== 32)) return null;
  return bech32.encode(prefix, words);
}

// Base58Check version bytes: P2PKH and P2SH on mainnet, then on testnet (also used by signet and regtest).
const BTC_BASE58_VERSIONS = new Set([0x00, 0x05, 0x6f, 0xc4]);
const BTC_SEGWIT_HRPS = new Set(["bc", "tb", "bcrt"]);

function bitcoin(address: string): string | null {
  const hrp = address.slice(0, address.lastIndexOf("1")).toLowerCase();
  if (BTC_SEGWIT_HRPS.has(hrp)) return segwit(address);
  const payload = base58check.decode(address);
  if (payload.length !== 21 || !BTC_BASE58_VERSIONS.has(payload[0])) return null;
  return base58check.encode(payload);
}

/** BIP-173 / BIP-350: witness v0 uses bech32 and a 20- or 32-byte program; v1..v16 use bech32m and 2..40 bytes. */
function segwit(address: string): string | null {
  // A string cannot carry both checksums, so trying each tells which encoding it uses.
  const asBech32 = bech32.decodeUnsafe(address);
  const decoded = asBech32 ?? bech32m.decodeUnsafe(address);
  if (!decoded || decoded.words.length === 0) return null;
  const [version, ...programWords] = decoded.words;
  if (version > 16 || (version === 0) !== Boolean(asBech32)) return null;
  const program = bech32.fromWordsUnsafe(programWords);
  if (!program || program.length < 2 || program.length > 40) return null;
  if (version === 0 && program.length !== 20 && program.length !== 32) return null;
  return (asBech32 ? bech32 : bech32m).encode(decoded.prefix, decoded.words);
}

function sui(address: string): string | null {
  return /^0x[0-9a-fA-F]{64}$/.test(address) ? address.toLowerCase() : null;
}

/** Aptos writes special addresses short (0x1); AIP-40's long form is the canonical one. */
function aptos(address: string): string | null {
  if (!/^0x[0-9a-fA-F]{1,64}$/.test(address)) return null;
  return "0x" + address.slice(2).toLowerCase().padStart(64, "0");
}

/** TRON: Base58Check over 0x41 || 20-byte account. */
function tron(address: string): string | null {
  const payload = base58check.decode(address);
  if (payload.length !== 21 || payload[0] !== 0x41) return null;
  return base58check.encode(payload);
}

// User-friendly tags: bounceable, non-bounceable; either may carry the 0x80 testnet-only flag.
const TON_TAGS = new Set([0x11, 0x51]);

/**
 * TON, raw (`<workchain>:<64 hex>`) or user-friendly (48 chars of base64/base64url over
 * tag || workchain || hash(32) || CRC16-XMODEM(2)). Both are stored in raw form: the friendly form's
 * bounceable/testnet flags are sending hints, not part of the account, and wallets (TON Connect) report raw.
 */
function ton(address: string): string | null {
  const raw = /^(-?\d{1,3}):([0-9a-fA-F]{64})$/.exec(address);
  if (raw) {
    const workchain = Number(raw[1]);
    // int8 is what the friendly form can carry; "-0" and leading zeros are not canonical spellings.
    if (workchain < -128 || workchain > 127 || String(workchain) !== raw[1]) return null;
    return `${workchain}:${raw[2].toLowerCase()}`;
  }
  let bytes: Uint8Array;
  if (/^[A-Za-z0-9+/]{48}$/.test(address)) bytes = base64.decode(address);
  else if (/^[A-Za-z0-9_-]{48}$/.test(address)) bytes = base64url.decode(address);
  else return null;
  if (!TON_TAGS.has(bytes[0] & 0x7f)) return null;
  const crc = crc16xmodem(Buffer.from(bytes.subarray(0, 34)));
  if (crc !== ((bytes[34] << 8) | bytes[35])) return null;
  const workchain = (bytes[1] << 24) >> 24; // sign-extend the int8
  return `${workchain}:${Buffer.from(bytes.subarray(2, 34)).toString("hex")}`;
}

// Spark addresses are long bech32m strings: a protobuf SparkAddress with the identity key first.
const SPARK_BECH32_LIMIT = 200;

/**
 * Spark: bech32m, hrp `sp`/`spark` plus a network suffix (sp, spt, sprt, spark, sparkrt, ...), whose payload
 * starts with protobuf field 1 (tag 0x0a, length 33) holding the compressed secp256k1 identity public key.
 */
function spark(address: string): string | null {
  const { prefix, words } = bech32m.decode(address, SPARK_BECH32_LIMIT);
  if (!prefix.startsWith("sp")) return null;
  const payload = bech32m.fromWordsUnsafe(words);
  if (!payload || payload.length < 35 || payload[0] !== 0x0a || payload[1] !== 0x21) return null;
  if (payload[2] !== 0x02 && payload[2] !== 0x03) return null;
  return bech32m.encode(prefix, words, SPARK_BECH32_LIMIT);
}

const NORMALIZERS: Record<Chain, Normalizer> = {
  ETH: canonicalEvmAddress,
  EVM: canonicalEvmAddress,
  FLOW: flow,
  SOL: solana,
  ECLIPSE: solana,
  ALGO: algorand,
  STARK: starknet,
  COSMOS: cosmos,
  BTC: bitcoin,
  SUI: sui,
  APTOS: aptos,
  TRON: tron,
  TON: ton,
  SPARK: spark,
};

export function isChain(chain: string): chain is Chain {
  return Object.hasOwn(NORMALIZERS, chain);
}

/**
 * The canonical form of `address` on `chain`, to store and compare; throws
 * badRequest("invalid_wallet_address") when it is not a valid address of that chain.
 */
export function normalizeWalletAddress(chain: string, address: string): string {
  if (!isChain(chain)) throw badRequest("invalid_chain", `${chain} is not a supported chain`);
  const trimmed = address.trim();
  const invalid = () =>
    badRequest("invalid_wallet_address", `${describe(trimmed)} is not a valid ${chain} address`, { chain });
  if (trimmed.length === 0 || trimmed.length > MAX_ADDRESS_CHARS) throw invalid();
  let normalized: string | null;
  try {
    normalized = NORMALIZERS[chain](trimmed);
  } catch {
    // The codecs throw on bad characters, lengths and checksums: all mean the same thing to the caller.
    normalized = null;
  }
  if (normalized === null) throw invalid();
  return normalized;
}

/** The address as echoed in the error: bounded, so hostile input is not reflected back at length. */
function describe(address: string): string {
  if (address.length === 0) return "an empty string";
  return address.length > 100 ? `${address.slice(0, 100)}…` : address;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
