import { createCipheriv, createDecipheriv, createPrivateKey, generateKeyPairSync, randomBytes, scryptSync } from "node:crypto";
import { hexToBytes } from "@noble/curves/utils.js";
import { compactDecrypt, type JWK } from "jose";
import { encryptToKeygenId, newKeygenKey } from "../../src/crypto/keygen-envelope.js";
import { frostCommit, frostSignShare } from "../../src/crypto/threshold/frost.js";
import { verifyShare, type KeyShare, type ShareSetPublic } from "../../src/crypto/threshold/shares.js";
import type { ShareSetView } from "../../src/domain/waas/threshold/share-operations.js";

/**
 * Plays the user's device in the WaaS room protocol (src/domain/waas/threshold/rooms.ts): it makes one P-256 keygen
 * key per share it keeps, opens the shares the service encrypted to those keys, checks each against the set's
 * public Feldman commitments as a real holder would, and keeps them only encrypted under a key derived from
 * the user's passcode (scrypt + AES-256-GCM): a wrong passcode opens nothing. For an operation it sends its
 * shares into the room encrypted to the room's key, or runs its half of FROST for Solana.
 */

export interface RoomView {
  roomId: string;
  walletId: string;
  operation: string;
  status: string;
  serverKeygenIds: string[];
  request: Record<string, any>;
  serverCommitments: Record<string, string>;
  result?: Record<string, any>;
  error?: { error: string; code: string; payload?: unknown };
}

interface Sealed {
  salt: string;
  iv: string;
  ct: string;
  tag: string;
}

export class WrongPasscode extends Error {}

/** The passcode KDF cost the benches give their many devices (scrypt's least; the real device's is 2^14). */
export const BENCH_SCRYPT_N = 2;

export class TestDevice {
  /** keygen id -> private JWK, for the keys this device made. */
  private readonly keys = new Map<string, string>();
  /** holder index -> share, sealed under the passcode. */
  private shares = new Map<number, Sealed>();
  private set: ShareSetPublic | undefined;
  shareSetId = "";

  /**
   * `scryptN`: the passcode KDF's cost (scrypt N). A real device's 2^14 costs ~50 ms per use; the benches,
   * which play many devices from one thread, lower it (that cost is the client's, not the service's).
   */
  constructor(
    private readonly passcode: string,
    private readonly scryptN = 1 << 14,
  ) {}

  /** What the device keeps (its keygen keys, its passcode-sealed shares, the set's public data), to save. */
  toJSON() {
    return { keys: [...this.keys], shares: [...this.shares], set: this.set, shareSetId: this.shareSetId };
  }

  /** A device saved with toJSON, unlocked by the same passcode when it uses its shares. */
  static fromJSON(saved: ReturnType<TestDevice["toJSON"]>, passcode: string): TestDevice {
    const d = new TestDevice(passcode);
    for (const [k, v] of saved.keys) d.keys.set(k, v);
    d.shares = new Map(saved.shares);
    d.set = saved.set;
    d.shareSetId = saved.shareSetId;
    return d;
  }

  /** Fresh keygen ids, one per share this device will keep. */
  keygenIds(count: number): string[] {
    return Array.from({ length: count }, () => {
      const k = newKeygenKey();
      this.keys.set(k.keygenId, k.privateJwk);
      return k.keygenId;
    });
  }

  /** Takes this device's shares out of a room's result; throws when one does not open or verify. */
  async receive(view: ShareSetView): Promise<void> {
    const pub: ShareSetPublic = { curve: view.curve as ShareSetPublic["curve"], threshold: view.threshold, holders: view.holders, commitments: view.commitments };
    const next = new Map<number, Sealed>();
    for (const e of view.encryptedShares) {
      const jwk = this.keys.get(e.keygenId);
      if (!jwk) throw new Error(`share ${e.holderIndex} is for a key this device does not have`);
      const { plaintext, protectedHeader } = await compactDecrypt(e.encryptedShare, createPrivateKey({ key: JSON.parse(jwk), format: "jwk" }));
      if (protectedHeader.sigil !== `share:${view.shareSetId}:${e.holderIndex}`) throw new Error(`share ${e.holderIndex} is labelled for another set or holder`);
      const share: KeyShare = { index: e.holderIndex, value: new TextDecoder().decode(plaintext) };
      if (!verifyShare(pub, share)) throw new Error(`share ${e.holderIndex} does not verify against the commitments`);
      next.set(e.holderIndex, this.seal(share.value));
    }
    this.shares = next;
    this.set = pub;
    this.shareSetId = view.shareSetId;
  }

  holderIndexes(): number[] {
    return [...this.shares.keys()].sort((a, b) => a - b);
  }

  /** The device's shares, passcode-sealed, as the client backs them up (encryptedAccountCredentials). */
  backupCredentials(): string[] {
    return this.holderIndexes().map((i) => Buffer.from(JSON.stringify({ holderIndex: i, ...this.shares.get(i)! })).toString("base64url"));
  }

  /**
   * Restores shares from backed-up credentials (recovery); the passcode must open them. With the set's public
   * data they are checked against its commitments; without (a device that lost everything), the server's
   * Feldman check refuses a wrong one at the next operation.
   */
  restore(credentials: string[], view?: { shareSetId: string; set: ShareSetPublic }, passcode = this.passcode): void {
    const next = new Map<number, Sealed>();
    for (const c of credentials) {
      const { holderIndex, ...sealed } = JSON.parse(Buffer.from(c, "base64url").toString()) as Sealed & { holderIndex: number };
      const value = this.open(sealed, passcode);
      if (view && !verifyShare(view.set, { index: holderIndex, value })) throw new Error(`recovered share ${holderIndex} does not verify`);
      next.set(holderIndex, sealed);
    }
    this.shares = next;
    if (view) {
      this.set = view.set;
      this.shareSetId = view.shareSetId;
    }
  }

  /** `{shares}`: the given holders' shares (default: all), each a JWE to the room's key. */
  async sharesContribution(room: RoomView, holders = this.holderIndexes(), passcode = this.passcode): Promise<Record<string, unknown>> {
    const shares: Record<string, string> = {};
    for (const i of holders) {
      const value = this.open(this.shares.get(i)!, passcode);
      shares[String(i)] = await encryptToKeygenId(room.serverKeygenIds[0]!, `room:${room.roomId}:share-${i}`, new TextEncoder().encode(value));
    }
    return { shares };
  }

  /** An import: the private key (hex) as a JWE to the room's key. */
  static async importContribution(room: RoomView, privateKeyHex: string): Promise<Record<string, unknown>> {
    return { privateKey: await encryptToKeygenId(room.serverKeygenIds[0]!, `room:${room.roomId}:privateKey`, new TextEncoder().encode(privateKeyHex)) };
  }

  /** Solana: this device's FROST round 1 and 2 for the room's message, with the server's commitments. */
  frostContribution(room: RoomView, passcode = this.passcode): Record<string, unknown> {
    if (!this.set) throw new Error("no shares");
    const signers = this.holderIndexes().slice(0, this.set.threshold - 1);
    const mine = signers.map((i) => ({ index: i, value: this.open(this.shares.get(i)!, passcode) }));
    const rounds = mine.map((s) => ({ s, ...frostCommit("ed25519", this.set!, s) }));
    const commitments: Record<number, string> = { ...Object.fromEntries(Object.entries(room.serverCommitments).map(([k, v]) => [Number(k), v])) };
    for (const r of rounds) commitments[r.s.index] = r.commitments;
    const message = hexToBytes(room.request.message);
    const signatureShares: Record<string, string> = {};
    for (const r of rounds) signatureShares[String(r.s.index)] = frostSignShare("ed25519", this.set, r.s, r.nonces, commitments, message);
    return {
      commitments: Object.fromEntries(rounds.map((r) => [String(r.s.index), r.commitments])),
      signatureShares,
    };
  }

  /** A one-time export key: the JWK to send, and the function that opens the service's answer. */
  static exportKey(): { publicJwk: JWK; open(jwe: string): Promise<Record<string, string>> } {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    return {
      publicJwk: publicKey.export({ format: "jwk" }) as JWK,
      async open(jwe: string) {
        const { plaintext } = await compactDecrypt(jwe, privateKey);
        return JSON.parse(new TextDecoder().decode(plaintext));
      },
    };
  }

  private seal(value: string): Sealed {
    const salt = randomBytes(16);
    const iv = randomBytes(12);
    const c = createCipheriv("aes-256-gcm", this.derive(this.passcode, salt), iv);
    const ct = Buffer.concat([c.update(value, "utf8"), c.final()]);
    return { salt: salt.toString("base64url"), iv: iv.toString("base64url"), ct: ct.toString("base64url"), tag: c.getAuthTag().toString("base64url") };
  }

  private open(s: Sealed, passcode: string): string {
    try {
      const d = createDecipheriv("aes-256-gcm", this.derive(passcode, Buffer.from(s.salt, "base64url")), Buffer.from(s.iv, "base64url"));
      d.setAuthTag(Buffer.from(s.tag, "base64url"));
      return Buffer.concat([d.update(Buffer.from(s.ct, "base64url")), d.final()]).toString("utf8");
    } catch {
      throw new WrongPasscode("the passcode does not open this device's shares");
    }
  }

  private derive(passcode: string, salt: Buffer): Buffer {
    return scryptSync(passcode, salt, 32, { N: this.scryptN });
  }
}

