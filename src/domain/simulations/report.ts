/**
 * What a simulation answers, in the published client's SimulateTransactionResponse shape (one shape for
 * every chain: sigil.simulations.v0's messages). The EVM report (evm-report.ts) and the Solana simulation
 * (solana-transactions/simulate.ts) build these and add what their chain reports besides.
 */

/** An asset in the published client's Asset shape. */
export interface SimulatedAsset {
  /** EVM: the token contract, null for the native currency. Solana: the mint, or SOL's placeholder address. */
  address: string | null;
  chainId: number;
  chainName: "EVM" | "SOL";
  decimals: number;
  logoUrl: string;
  name: string;
  symbol: string;
  /** NATIVE, ERC20, ERC721, ERC1155 (EVM); NATIVE, SPL (Solana). */
  type: "NATIVE" | "ERC20" | "ERC721" | "ERC1155" | "SPL";
}

export interface SimulatedTransfer {
  /** Base units, decimal. */
  rawValue: string;
  summary: string;
  /** rawValue / 10^decimals, as exact decimal text. */
  value: string;
  /** An ERC-721 or ERC-1155 transfer's token id. */
  tokenId?: string;
}

export interface AssetDiff {
  asset: SimulatedAsset;
  transferIn: SimulatedTransfer[];
  transferOut: SimulatedTransfer[];
}

/** Why the simulated transactions should not be signed as they are (the client's BlockaidValidation). */
export type SimulationValidation =
  | {
      /** The EVM transaction or user operation would fail. */
      result: "Error";
      description: string;
      reason: string;
      classification: "transaction_reverted" | "insufficient_funds" | "user_operation_failed" | "user_operation_call_reverted";
    }
  | {
      /** A Solana transaction fails when simulated. */
      result: "Warning";
      description: string;
      reason: string;
      classification: "simulation_failed";
    };

/** The parts of the client's SimulateTransactionResponse every chain answers. */
export interface SimulationAnswer {
  /** Assets the account receives, and sends, each with its transfers. */
  inAssets: AssetDiff[];
  outAssets: AssetDiff[];
  /** The other side of the account's transfers, each once. */
  counterparties: string[];
  /** No price source is configured: no prices, no fiat total. */
  priceData: Record<string, never>;
  showTotalFiat: false;
  validation?: SimulationValidation;
}
