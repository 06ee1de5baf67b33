/**
 * The shapes of the WaaS wallet actor's operations (src/workflows/waas-wallet.ts and its activities in
 * src/activities/waas*.ts). Types only: the workflow bundle names them without importing code.
 */

/** The threshold schemes of the spec (src/crypto/threshold/shares.ts SCHEMES). */
export type WaasScheme = "TWO_OF_TWO" | "TWO_OF_THREE" | "THREE_OF_FIVE";
export type WaasChain = "EVM" | "SOL";

/** The key-share operations a room runs (src/domain/waas/threshold/rooms.ts). */
export type RoomOperationName = "keygen" | "import" | "sign" | "refresh" | "reshare" | "export";

/**
 * What an actor operation carries: the room only. The room holds the operation's parameters and the
 * device's contribution encrypted to the room's key; an Update's input is written to the Temporal history,
 * which therefore never holds anything that opens a share.
 */
export interface RoomOperationInput {
  roomId: string;
}

/** A share set as operations answer it: public data and the shares encrypted to their holders. */
export interface ShareSetView {
  shareSetId: string;
  epoch: number;
  curve: string;
  threshold: number;
  holders: number;
  commitments: string[];
  /** Every holder's share but the server's, as a JWE to that holder's keygen id. */
  encryptedShares: { holderIndex: number; keygenId: string; encryptedShare: string }[];
}
