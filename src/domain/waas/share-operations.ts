/**
 * The shapes of the WaaS wallet actor's share operations (src/workflows/waas-wallet.ts and its activities
 * in src/activities/waas.ts). Types only: the workflow bundle names them without importing code.
 */

/** The threshold schemes of the spec (src/crypto/threshold/shares.ts SCHEMES). */
export type WaasScheme = "TWO_OF_TWO" | "TWO_OF_THREE" | "THREE_OF_FIVE";
export type WaasChain = "EVM" | "SOL";

/**
 * A holder other than the server as an operation names it: its index and the key its share is encrypted to.
 * An operation's input is written to the Temporal history, so the key travels sealed with the service's
 * sealing key, bound to the wallet and holder (sealHolderKey): the history never holds a key that opens a
 * share next to that share.
 */
export interface HolderKey {
  holderIndex: number;
  /** The AES-256-GCM key (32 bytes; the device protocol replaces it later), sealed by sealHolderKey. */
  sealedKey: string;
}

/** A share encrypted to its holder, with the key to open it (refresh and sign need the holder's share). */
export interface HolderShareInput extends HolderKey {
  encryptedShare: string;
}

/** A share set as operations answer it: public data and the shares encrypted to their holders. */
export interface ShareSetView {
  shareSetId: string;
  epoch: number;
  curve: string;
  threshold: number;
  holders: number;
  commitments: string[];
  /** Every holder's share but the server's, encrypted to that holder. */
  encryptedShares: { holderIndex: number; encryptedShare: string }[];
}
