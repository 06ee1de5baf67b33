import { secp256k1 } from "@noble/curves/secp256k1.js";
import { randomBytes } from "node:crypto";
import { bytesToHex, hashMessage, recoverMessageAddress, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { recoverAddress, recoverAddressWithNoble, secp256k1Backend } from "../../src/crypto/secp256k1-recover.js";

/**
 * The native recovery behind wallet sign-in answers as viem (noble) does: the same signer for every good
 * signature, and a refusal for every signature viem refuses.
 */

const N = secp256k1.Point.CURVE().n;
const hex32 = (x: bigint) => x.toString(16).padStart(64, "0");

/** viem's answer: the signer, or "refused". */
async function viemSigner(message: string, signature: Hex): Promise<string> {
  try {
    return (await recoverMessageAddress({ message, signature })).toLowerCase();
  } catch {
    return "refused";
  }
}
function ours(message: string, signature: Hex, recover = recoverAddress): string {
  try {
    return recover(hashMessage(message), signature);
  } catch {
    return "refused";
  }
}

describe("secp256k1 recovery", () => {
  it("uses libsecp256k1's prebuilt binary on this platform", () => {
    expect(secp256k1Backend).toBe("libsecp256k1");
  });

  it("recovers the signer of personal_sign messages as viem does, for random keys", async () => {
    for (let i = 0; i < 200; i++) {
      const account = privateKeyToAccount(generatePrivateKey());
      const message = `sign in ${i} ${bytesToHex(randomBytes(8))}`;
      const signature = await account.signMessage({ message });
      expect(ours(message, signature)).toBe(account.address.toLowerCase());
      expect(ours(message, signature, recoverAddressWithNoble)).toBe(account.address.toLowerCase());
      expect(await viemSigner(message, signature)).toBe(account.address.toLowerCase());
    }
  });

  it("accepts and refuses the malformed signatures viem accepts and refuses, with the same signer", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const message = "malformed signatures";
    const good = await account.signMessage({ message });
    const r = BigInt(`0x${good.slice(2, 66)}`);
    const s = BigInt(`0x${good.slice(66, 130)}`);
    const v = Number.parseInt(good.slice(130), 16);
    const sig = (r_: bigint, s_: bigint, v_: number) => `0x${hex32(r_)}${hex32(s_)}${v_.toString(16).padStart(2, "0")}` as Hex;
    const cases: Record<string, Hex> = {
      good,
      "v as a bare bit": sig(r, s, v - 27),
      // The same signature with s flipped high and the parity with it: malleable, still this key's.
      "high s, parity flipped": sig(r, N - s, v === 27 ? 28 : 27),
      "high s, parity kept": sig(r, N - s, v),
      "v 2": sig(r, s, 2),
      "v 26": sig(r, s, 26),
      "v 29": sig(r, s, 29),
      "v 37 (EIP-155)": sig(r, s, 37),
      "r 0": sig(0n, s, v),
      "s 0": sig(r, 0n, v),
      "r n": sig(N, s, v),
      "s n": sig(r, N, v),
      "r above n": sig(N + 1n, s, v),
      "r all ones": sig((1n << 256n) - 1n, s, v),
      "r with no point": sig(5n, s, v),
      "another message's digest": good,
      "64 bytes": good.slice(0, 130) as Hex,
      "66 bytes": `${good}00` as Hex,
    };
    for (const [name, signature] of Object.entries(cases)) {
      const text = name === "another message's digest" ? "another message" : message;
      const expected = await viemSigner(text, signature);
      expect({ name, native: ours(text, signature), noble: ours(text, signature, recoverAddressWithNoble) }).toEqual({ name, native: expected, noble: expected });
    }
    expect(await viemSigner(message, sig(r, N - s, v === 27 ? 28 : 27))).toBe(account.address.toLowerCase());
  });

  it("refuses random 65-byte strings exactly when viem does", async () => {
    for (let i = 0; i < 100; i++) {
      const signature = bytesToHex(new Uint8Array([...randomBytes(64), [0, 1, 27, 28, 5][i % 5]]));
      expect(ours("random", signature)).toBe(await viemSigner("random", signature));
    }
  });
});
