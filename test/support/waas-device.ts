import { randomBytes } from "node:crypto";
import { base64urlnopad } from "@scure/base";
import { verifyShare, type ShareSetPublic } from "../../src/crypto/threshold/shares.js";
import type { HolderShareInput, ShareSetView } from "../../src/domain/waas/share-operations.js";
import type { Sealer } from "../../src/crypto/seal.js";
import { decryptForHolder, sealHolderKey } from "../../src/domain/waas/holder-share.js";

/**
 * Plays a holder other than the server (the user's device, a backup): it owns a key, keeps the share the
 * service returned encrypted to it, checks that share against the set's public commitments as a real holder
 * would, and hands it back with its key for the operations that need it (refresh, sign).
 */
export class TestHolder {
  readonly key = base64urlnopad.encode(randomBytes(32));
  private share: { shareSetId: string; encryptedShare: string } | undefined;

  /** `wallet`: the wallet whose operations this holder joins, and the sealer its key travels sealed with. */
  constructor(
    readonly holderIndex: number,
    private readonly wallet: { walletId: string; sealer: Sealer },
  ) {}

  /** This holder's key as an operation carries it: sealed for the wallet and holder (it goes into the history). */
  sealedKey(): string {
    return sealHolderKey(this.wallet.sealer, this.wallet.walletId, this.holderIndex, this.key);
  }

  /** Takes this holder's share out of an operation's result; throws when it does not verify. */
  receive(set: ShareSetView): void {
    const mine = set.encryptedShares.find((s) => s.holderIndex === this.holderIndex);
    if (!mine) throw new Error(`no share for holder ${this.holderIndex}`);
    const value = decryptForHolder(Buffer.from(base64urlnopad.decode(this.key)), set.shareSetId, this.holderIndex, mine.encryptedShare);
    const pub: ShareSetPublic = { curve: set.curve as ShareSetPublic["curve"], threshold: set.threshold, holders: set.holders, commitments: set.commitments };
    if (!verifyShare(pub, { index: this.holderIndex, value })) throw new Error(`holder ${this.holderIndex}: share does not verify`);
    this.share = { shareSetId: set.shareSetId, encryptedShare: mine.encryptedShare };
  }

  /** The key this holder's share is encrypted to, for creating a set. */
  keyInput() {
    return { holderIndex: this.holderIndex, sealedKey: this.sealedKey() };
  }

  /** Its current share with its key, as an operation's input. */
  shareInput(): HolderShareInput {
    if (!this.share) throw new Error(`holder ${this.holderIndex} holds no share yet`);
    return { holderIndex: this.holderIndex, sealedKey: this.sealedKey(), encryptedShare: this.share.encryptedShare };
  }
}
