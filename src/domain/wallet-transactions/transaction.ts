/** One transaction of an address, in the published client's WalletTransaction shape. */
export interface WalletTransaction {
  transactionHash: string;
  /** The EVM block number, or the Solana slot. */
  blockNumber: bigint;
  /** Seconds since the epoch; null where the node does not know it (never made up). */
  timestamp: number | null;
  /** The block's hash; empty on Solana (getTransaction does not name it). */
  blockHash: string;
  fromAddress: string;
  toAddress: string;
  labels: ("sent" | "receive" | "swap")[];
  assetTransfers: AssetTransfer[];
  chainName: string;
  networkId: number;
}

export interface AssetTransfer {
  /** Absent for the native currency. */
  tokenAddress?: string;
  fromAddress: string;
  toAddress: string;
  /** In whole units when the decimals are known, else base units. */
  amount: number;
  metadata?: { name?: string; symbol?: string; decimals?: number };
}

export interface WalletTransactionsPage {
  transactions: WalletTransaction[];
  /** Where the next (older) page starts; absent when there is none. */
  nextOffset?: string;
}

/** Whole units of base units, as a number (the client's `amount`). */
export const wholeUnits = (raw: bigint, decimals: number) => Number(raw) / 10 ** decimals;

/** The labels of a transaction for `address`: what it sent, received, or both for different assets (a swap). */
export function labelsFor(address: string, transfers: AssetTransfer[], sentByAddress: boolean): WalletTransaction["labels"] {
  const out = new Set(transfers.filter((t) => t.fromAddress === address).map((t) => t.tokenAddress ?? ""));
  const inn = new Set(transfers.filter((t) => t.toAddress === address).map((t) => t.tokenAddress ?? ""));
  if (out.size > 0 && inn.size > 0 && [...inn].some((a) => !out.has(a))) return ["swap"];
  const labels: WalletTransaction["labels"] = [];
  if (out.size > 0 || (sentByAddress && inn.size === 0)) labels.push("sent");
  if (inn.size > 0) labels.push("receive");
  return labels;
}
