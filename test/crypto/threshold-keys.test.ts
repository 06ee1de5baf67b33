import { ed25519 } from "@noble/curves/ed25519.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex } from "@noble/curves/utils.js";
import { base58 } from "@scure/base";
import { getAddress } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { addressOf, importedSecret, newWalletSecret } from "../../src/crypto/threshold/keys.js";
import { codeOf } from "../support/domain-errors.js";

describe("wallet secrets per curve", () => {
  it("newWalletSecret: 32 distinct bytes each time, a valid scalar of the curve", () => {
    for (const curve of ["secp256k1", "ed25519"] as const) {
      const seen = new Set<string>();
      for (let i = 0; i < 20; i++) {
        const s = newWalletSecret(curve);
        expect(s).toHaveLength(32);
        seen.add(bytesToHex(s));
        const Fn = curve === "secp256k1" ? secp256k1.Point.Fn : ed25519.Point.Fn;
        expect(Fn.is0(Fn.fromBytes(s))).toBe(false);
      }
      expect(seen.size).toBe(20);
    }
    // secp256k1: the secret is an ordinary private key.
    const s = newWalletSecret("secp256k1");
    expect(secp256k1.utils.isValidSecretKey(s)).toBe(true);
  });

  it("addressOf: EIP-55 address of the key for EVM, base58 public key for Solana", () => {
    const key = secp256k1.utils.randomSecretKey();
    const address = addressOf("secp256k1", secp256k1.getPublicKey(key, true));
    expect(address).toBe(privateKeyToAddress(`0x${bytesToHex(key)}`));
    expect(address).toBe(getAddress(address));

    const seed = ed25519.utils.randomSecretKey();
    expect(addressOf("ed25519", ed25519.getPublicKey(seed))).toBe(base58.encode(ed25519.getPublicKey(seed)));
  });

  it("addressOf refuses bytes that are not a key of the curve", () => {
    expect(() => addressOf("secp256k1", new Uint8Array(33))).toThrow();
    expect(() => addressOf("secp256k1", secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), false))).toThrow();
    expect(() => addressOf("ed25519", new Uint8Array(32))).toThrow(); // y = 0: a small-order point, not a key
    expect(() => addressOf("ed25519", new Uint8Array(31))).toThrow();
  });

  it("importedSecret (secp256k1): the key itself, copied; out-of-range keys refused", () => {
    const key = secp256k1.utils.randomSecretKey();
    const secret = importedSecret("secp256k1", key);
    expect(secret).toEqual(key);
    expect(secret).not.toBe(key);
    expect(codeOf(() => importedSecret("secp256k1", new Uint8Array(32)))).toBe("invalid_private_key");
    expect(codeOf(() => importedSecret("secp256k1", new Uint8Array(32).fill(0xff)))).toBe("invalid_private_key");
    expect(codeOf(() => importedSecret("secp256k1", new Uint8Array(31).fill(1)))).toBe("invalid_private_key");
  });

  it("importedSecret (ed25519): a seed or a Solana keypair becomes the RFC 8032 scalar of the same public key", () => {
    const seed = ed25519.utils.randomSecretKey();
    const publicKey = ed25519.getPublicKey(seed);
    const fromSeed = importedSecret("ed25519", seed);
    const fromKeypair = importedSecret("ed25519", Uint8Array.from([...seed, ...publicKey]));
    expect(fromKeypair).toEqual(fromSeed);
    // Not the seed: the scalar, little-endian, below L, whose point is the public key.
    expect(fromSeed).not.toEqual(seed);
    expect(ed25519.Point.BASE.multiply(ed25519.Point.Fn.fromBytes(fromSeed)).toBytes()).toEqual(publicKey);
    expect(ed25519.Point.Fn.fromBytes(fromSeed)).toBe(ed25519.utils.getExtendedPublicKey(seed).scalar);
  });

  it("importedSecret (ed25519) refuses a keypair whose halves do not match, and bad lengths", () => {
    const seed = ed25519.utils.randomSecretKey();
    const otherPublic = ed25519.getPublicKey(ed25519.utils.randomSecretKey());
    expect(codeOf(() => importedSecret("ed25519", Uint8Array.from([...seed, ...otherPublic])))).toBe("invalid_private_key");
    expect(codeOf(() => importedSecret("ed25519", new Uint8Array(48)))).toBe("invalid_private_key");
  });
});
