import { CompactEncrypt, compactDecrypt, exportJWK, generateKeyPair, importJWK } from "jose";
import { keygenIdJwk, keygenIdOf } from "../../src/crypto/keygen-id.js";
import { verifyShare, type ShareSetPublic } from "../../src/crypto/threshold/shares.js";

/**
 * The browser's half of a threshold wallet (the WaaS room protocol of src/domain/waas/threshold/rooms.ts), as
 * test/support/waas-device.ts plays it in the tests: the device names a P-256 key of its own by its *keygen
 * id* (base64url of the compressed point), opens the share the service encrypted to that key, checks it
 * against the share set's public Feldman commitments with the same code the server uses
 * (src/crypto/threshold/shares.ts, bundled for the browser), and for a signature sends the share into the
 * room encrypted to the room's key. The keygen private key is a non-extractable WebCrypto key; the share
 * lives in this page's memory only (a real app seals it under the user's passcode and backs it up: README,
 * "Threshold wallets"), so a reload forgets it.
 */

/** A room as GET /waas/rooms/{roomId} answers it (the fields the device reads). */
export interface Room {
  roomId: string;
  walletId: string;
  status: string;
  serverKeygenIds: string[];
  result?: { address?: string; shareSet?: ShareSetView; signature?: string };
}

interface ShareSetView extends ShareSetPublic {
  shareSetId: string;
  epoch: number;
  encryptedShares: { holderIndex: number; keygenId: string; encryptedShare: string }[];
}

export class BrowserDevice {
  private readonly keys = new Map<string, CryptoKey>();
  private shares = new Map<number, string>();

  /** `count` fresh keygen ids, one per share the device will hold. */
  async keygenIds(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const { privateKey, publicKey } = await generateKeyPair("ECDH-ES", { crv: "P-256", extractable: false });
      const id = keygenIdOf(await exportJWK(publicKey));
      this.keys.set(id, privateKey as CryptoKey);
      ids.push(id);
    }
    return ids;
  }

  /** Takes the device's shares out of a finished keygen room; throws when one does not open or verify. */
  async receive(view: ShareSetView): Promise<void> {
    const pub: ShareSetPublic = { curve: view.curve, threshold: view.threshold, holders: view.holders, commitments: view.commitments };
    const next = new Map<number, string>();
    for (const e of view.encryptedShares) {
      const key = this.keys.get(e.keygenId);
      if (!key) throw new Error(`share ${e.holderIndex} is for a key this device does not have`);
      const { plaintext, protectedHeader } = await compactDecrypt(e.encryptedShare, key, { keyManagementAlgorithms: ["ECDH-ES"], contentEncryptionAlgorithms: ["A256GCM"] });
      if (protectedHeader.sigil !== `share:${view.shareSetId}:${e.holderIndex}`) throw new Error(`share ${e.holderIndex} is labelled for another set or holder`);
      const value = new TextDecoder().decode(plaintext);
      if (!verifyShare(pub, { index: e.holderIndex, value })) throw new Error(`share ${e.holderIndex} does not verify against the commitments`);
      next.set(e.holderIndex, value);
    }
    this.shares = next;
  }

  get holds(): boolean {
    return this.shares.size > 0;
  }

  /** The device's part of a signature: `{shares}`, each share a JWE to the room's key under its label. */
  async sharesContribution(room: Room): Promise<{ shares: Record<string, string> }> {
    const roomKey = await importJWK(keygenIdJwk(room.serverKeygenIds[0]!), "ECDH-ES");
    const shares: Record<string, string> = {};
    for (const [index, value] of this.shares) {
      shares[String(index)] = await new CompactEncrypt(new TextEncoder().encode(value))
        .setProtectedHeader({ alg: "ECDH-ES", enc: "A256GCM", sigil: `room:${room.roomId}:share-${index}` })
        .encrypt(roomKey);
    }
    return { shares };
  }
}
