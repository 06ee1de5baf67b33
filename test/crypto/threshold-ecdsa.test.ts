import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex, hexToBytes } from "@noble/curves/utils.js";
import fc from "fast-check";
import {
  hashMessage,
  hashTypedData,
  keccak256,
  parseEther,
  parseTransaction,
  recoverAddress,
  recoverTransactionAddress,
  serializeTransaction,
  verifyMessage,
  verifyTypedData,
  type TransactionSerializableEIP1559,
} from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { signDigestWithShares } from "../../src/crypto/threshold/ecdsa.js";
import { addressOf, importedSecret, newWalletSecret } from "../../src/crypto/threshold/keys.js";
import { SCHEMES, groupPublicKey, refreshShares, reshareSecret, splitSecret } from "../../src/crypto/threshold/shares.js";
import { codeOf } from "../support/domain-errors.js";

const digestOf = (hex: `0x${string}`) => hexToBytes(hex.slice(2));
const HALF_N = secp256k1.Point.Fn.ORDER / 2n;

function wallet(threshold = 2, holders = 3) {
  const set = splitSecret("secp256k1", newWalletSecret("secp256k1"), threshold, holders);
  return { ...set, address: addressOf("secp256k1", groupPublicKey(set.public)) as `0x${string}` };
}

const typedData = {
  domain: { name: "Ether Mail", version: "1", chainId: 1, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" },
  types: {
    Person: [
      { name: "name", type: "string" },
      { name: "wallet", type: "address" },
    ],
    Mail: [
      { name: "from", type: "Person" },
      { name: "to", type: "Person" },
      { name: "contents", type: "string" },
    ],
  },
  primaryType: "Mail",
  message: {
    from: { name: "Cow", wallet: "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826" },
    to: { name: "Bob", wallet: "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB" },
    contents: "Hello, Bob!",
  },
} as const;

describe("signDigestWithShares (EVM)", () => {
  it("EIP-191: any threshold subset signs a personal message that viem attributes to the wallet's address", async () => {
    const { public: pub, shares, address } = wallet();
    for (const signers of [[shares[0], shares[1]], [shares[2], shares[0]], shares]) {
      const { signature, r, s, recovery } = signDigestWithShares(pub, signers, digestOf(hashMessage("gm")));
      expect(signature).toMatch(/^0x[0-9a-f]{130}$/);
      expect(signature.slice(-2)).toBe(recovery === 0 ? "1b" : "1c");
      expect(signature.slice(0, 130)).toBe(`${r}${s.slice(2)}`);
      expect(await verifyMessage({ address, message: "gm", signature })).toBe(true);
      expect(await verifyMessage({ address, message: "gn", signature })).toBe(false);
      expect(await recoverAddress({ hash: hashMessage("gm"), signature })).toBe(address);
    }
  });

  it("EIP-712 typed data verifies with viem", async () => {
    const { public: pub, shares, address } = wallet(3, 5);
    const { signature } = signDigestWithShares(pub, [shares[4], shares[1], shares[3]], digestOf(hashTypedData(typedData)));
    expect(await verifyTypedData({ address, signature, ...typedData })).toBe(true);
    expect(
      await verifyTypedData({ address, signature, ...typedData, message: { ...typedData.message, contents: "Hello, Eve!" } }),
    ).toBe(false);
  });

  it("a signed EIP-1559 transaction recovers to the wallet, with the chain id it was signed for", async () => {
    const { public: pub, shares, address } = wallet(2, 2);
    const tx: TransactionSerializableEIP1559 = {
      type: "eip1559",
      chainId: 8453,
      nonce: 7,
      to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      value: parseEther("0.01"),
      gas: 21_000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
    };
    const { r, s, recovery } = signDigestWithShares(pub, shares, digestOf(keccak256(serializeTransaction(tx))));
    const signed = serializeTransaction(tx, { r: r as `0x${string}`, s: s as `0x${string}`, yParity: recovery });
    expect(await recoverTransactionAddress({ serializedTransaction: signed })).toBe(address);
    expect(parseTransaction(signed).chainId).toBe(8453);
  });

  it("property: signatures are low-s, recover to the address, and survive refresh and reshare", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.boolean(), async (digest, reshare) => {
        const w = wallet();
        const next = reshare
          ? reshareSecret(w.public, w.shares, SCHEMES.THREE_OF_FIVE.threshold, SCHEMES.THREE_OF_FIVE.holders)
          : refreshShares(w.public, w.shares);
        const { signature, s } = signDigestWithShares(next.public, next.shares.slice(-next.public.threshold), digest);
        expect(BigInt(s) <= HALF_N).toBe(true);
        expect(await recoverAddress({ hash: `0x${bytesToHex(digest)}`, signature })).toBe(w.address);
      }),
      { numRuns: 15 },
    );
  });

  it("an imported private key keeps its address", async () => {
    const key = secp256k1.utils.randomSecretKey();
    const { public: pub, shares } = splitSecret("secp256k1", importedSecret("secp256k1", key), 2, 3);
    const address = privateKeyToAddress(`0x${bytesToHex(key)}`);
    expect(addressOf("secp256k1", groupPublicKey(pub))).toBe(address);
    const { signature } = signDigestWithShares(pub, [shares[1], shares[2]], digestOf(hashMessage("imported")));
    expect(await verifyMessage({ address, message: "imported", signature })).toBe(true);
  });

  it("refuses too few, tampered, duplicated or stale shares, another curve, and a digest that is not 32 bytes", () => {
    const { public: pub, shares } = wallet();
    const digest = digestOf(hashMessage("x"));
    expect(codeOf(() => signDigestWithShares(pub, [shares[0]], digest))).toBe("not_enough_key_shares");
    expect(codeOf(() => signDigestWithShares(pub, [shares[0], { ...shares[1], index: 3 }], digest))).toBe("invalid_key_share");
    expect(codeOf(() => signDigestWithShares(pub, [shares[0], shares[0]], digest))).toBe("duplicate_key_share");
    const refreshed = refreshShares(pub, shares);
    expect(codeOf(() => signDigestWithShares(refreshed.public, [shares[0], refreshed.shares[1]], digest))).toBe("invalid_key_share");
    // Commitments swapped for another wallet's: the shares no longer match, nothing is signed.
    expect(codeOf(() => signDigestWithShares(wallet().public, shares.slice(0, 2), digest))).toBe("invalid_key_share");
    const solana = splitSecret("ed25519", newWalletSecret("ed25519"), 2, 3);
    expect(codeOf(() => signDigestWithShares(solana.public, solana.shares, digest))).toBe("invalid_signing_suite");
    expect(codeOf(() => signDigestWithShares(pub, shares, digest.subarray(0, 31)))).toBe("invalid_digest");
    expect(codeOf(() => signDigestWithShares(pub, shares, new Uint8Array(33)))).toBe("invalid_digest");
  });
});
