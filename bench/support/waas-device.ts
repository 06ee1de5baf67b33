/**
 * The device side of the WaaS room protocol for bench/waas.ts: the same envelopes and checks as the tests'
 * device (test/support/waas-device.ts: keygen keys, shares opened from JWEs and checked against the Feldman
 * commitments, shares sent into a room as JWEs to its key, FROST rounds for Solana), but the shares stay in
 * memory instead of under a passcode: the tests' scrypt (~50 ms of this process's one thread per use) is the
 * client's cost, not Sigil's, and would make the load generator the bottleneck.
 */
import { createPrivateKey, type KeyObject } from "node:crypto";
import { hexToBytes } from "@noble/curves/utils.js";
import { compactDecrypt } from "jose";
import { encryptToKeygenId, newKeygenKey } from "../../src/crypto/keygen-envelope.js";
import { frostCommit, frostSignShare } from "../../src/crypto/threshold/frost.js";
import { verifyShare, type KeyShare, type ShareSetPublic } from "../../src/crypto/threshold/shares.js";

/** What GET .../waas/rooms/{roomId} answers (the fields a device reads). */
export interface RoomView {
  roomId: string;
  walletId: string;
  status: string;
  serverKeygenIds: string[];
  request: Record<string, any>;
  serverCommitments: Record<string, string>;
  result?: Record<string, any>;
}

/** A room result's share set: public data and one JWE per device holder. */
interface ShareSetView {
  shareSetId: string;
  curve: string;
  threshold: number;
  holders: number;
  commitments: string[];
  encryptedShares: { holderIndex: number; keygenId: string; encryptedShare: string }[];
}

export class BenchDevice {
  private readonly keys = new Map<string, KeyObject>();
  private shares: KeyShare[] = [];
  private set: ShareSetPublic | undefined;

  /** Fresh keygen ids, one per share this device will keep. */
  keygenIds(count: number): string[] {
    return Array.from({ length: count }, () => {
      const k = newKeygenKey();
      this.keys.set(k.keygenId, createPrivateKey({ key: JSON.parse(k.privateJwk), format: "jwk" }));
      return k.keygenId;
    });
  }

  /** Opens this device's shares from a room's result; throws when one does not open, is mislabelled or does not verify. */
  async receive(view: ShareSetView): Promise<void> {
    const pub: ShareSetPublic = { curve: view.curve as ShareSetPublic["curve"], threshold: view.threshold, holders: view.holders, commitments: view.commitments };
    const shares: KeyShare[] = [];
    for (const e of view.encryptedShares) {
      const key = this.keys.get(e.keygenId);
      if (!key) throw new Error(`share ${e.holderIndex} is for a key this device does not have`);
      const { plaintext, protectedHeader } = await compactDecrypt(e.encryptedShare, key);
      if (protectedHeader.sigil !== `share:${view.shareSetId}:${e.holderIndex}`) throw new Error(`share ${e.holderIndex} is labelled for another set or holder`);
      const share = { index: e.holderIndex, value: new TextDecoder().decode(plaintext) };
      if (!verifyShare(pub, share)) throw new Error(`share ${e.holderIndex} does not verify against the commitments`);
      shares.push(share);
    }
    this.shares = shares;
    this.set = pub;
  }

  /** EVM: `{shares}`, each of this device's shares as a JWE to the room's key. */
  async sharesContribution(room: RoomView): Promise<Record<string, unknown>> {
    const shares: Record<string, string> = {};
    for (const s of this.shares) {
      shares[String(s.index)] = await encryptToKeygenId(room.serverKeygenIds[0]!, `room:${room.roomId}:share-${s.index}`, new TextEncoder().encode(s.value));
    }
    return { shares };
  }

  /** Solana: this device's FROST rounds 1 and 2 for the room's message, beside the server's commitments. */
  frostContribution(room: RoomView): Record<string, unknown> {
    const set = this.set;
    if (!set) throw new Error("no shares");
    const rounds = this.shares.slice(0, set.threshold - 1).map((s) => ({ s, ...frostCommit("ed25519", set, s) }));
    const commitments: Record<number, string> = Object.fromEntries(Object.entries(room.serverCommitments).map(([k, v]) => [Number(k), v]));
    for (const r of rounds) commitments[r.s.index] = r.commitments;
    const message = hexToBytes(room.request.message);
    return {
      commitments: Object.fromEntries(rounds.map((r) => [String(r.s.index), r.commitments])),
      signatureShares: Object.fromEntries(rounds.map((r) => [String(r.s.index), frostSignShare("ed25519", set, r.s, r.nonces, commitments, message)])),
    };
  }
}
