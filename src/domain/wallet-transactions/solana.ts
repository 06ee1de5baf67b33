import { badRequest } from "../../errors.js";
import type { Deps } from "../deps.js";
import type { ResolvedNetwork } from "../chains/endpoints.js";
import { addSolanaDeltas, noSolanaDeltas } from "../chains/solana-deltas.js";
import { tokensOfChain } from "../chains/tokens.js";
import type { SolanaTransactionRecord } from "./node.js";
import { labelsFor, wholeUnits, type AssetTransfer, type WalletTransaction, type WalletTransactionsPage } from "./transaction.js";

const BASE58_SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{64,90}$/;

/**
 * The balance changes of a landed transaction for each party: lamports per account (the fee given back to
 * the payer: it is the network's, not a transfer; token accounts' rent left out) and base units per owner
 * and mint.
 */
function movesOf(tx: SolanaTransactionRecord) {
  const d = noSolanaDeltas();
  addSolanaDeltas(d, { keys: tx.accountKeys, ...tx });
  for (const a of d.tokenAccounts) d.lamports.delete(a);
  return { lamports: d.lamports, tokens: [...d.tokens.values()].filter((t) => t.delta !== 0n) };
}

/** The party whose change is the largest in the other direction: the other side of the address's transfer. */
function counterpartOf(changes: [string, bigint][], address: string, sign: 1n | -1n): string {
  const others = changes.filter(([who, d]) => who !== address && d * sign > 0n).sort((a, b) => (a[1] * sign > b[1] * sign ? -1 : 1));
  return others[0]?.[0] ?? "";
}

function toWalletTransaction(tx: SolanaTransactionRecord, address: string, net: ResolvedNetwork, known: Map<string, { name: string; symbol: string }>): WalletTransaction {
  const moves = movesOf(tx);
  const transfers: AssetTransfer[] = [];
  const sol = moves.lamports.get(address) ?? 0n;
  if (sol !== 0n && !tx.err) {
    const other = counterpartOf([...moves.lamports], address, sol > 0n ? -1n : 1n);
    transfers.push({
      fromAddress: sol < 0n ? address : other,
      toAddress: sol < 0n ? other : address,
      amount: wholeUnits(sol < 0n ? -sol : sol, 9),
      metadata: { name: "Solana", symbol: "SOL", decimals: 9 },
    });
  }
  for (const t of moves.tokens) {
    if (t.owner !== address) continue;
    const other = counterpartOf(moves.tokens.filter((o) => o.mint === t.mint).map((o) => [o.owner, o.delta]), address, t.delta > 0n ? -1n : 1n);
    const k = known.get(t.mint);
    transfers.push({
      tokenAddress: t.mint,
      fromAddress: t.delta < 0n ? address : other,
      toAddress: t.delta < 0n ? other : address,
      amount: wholeUnits(t.delta < 0n ? -t.delta : t.delta, t.decimals),
      metadata: { ...(k ? { name: k.name, symbol: k.symbol } : {}), decimals: t.decimals },
    });
  }
  const feePayer = tx.accountKeys[0] ?? "";
  return {
    transactionHash: tx.signature,
    blockNumber: tx.slot,
    timestamp: tx.blockTime,
    blockHash: "",
    fromAddress: feePayer,
    toAddress: transfers[0]?.toAddress ?? "",
    labels: labelsFor(address, transfers, feePayer === address),
    assetTransfers: transfers,
    chainName: "SOL",
    networkId: net.networkId,
  };
}

/**
 * The address's recent transactions from a Solana node: getSignaturesForAddress (newest first, `limit`,
 * before `offset`, a signature) and getTransaction of each. The address's SOL and SPL changes are its asset
 * transfers (the fee left out), the other side being the party whose balance moved the most the other way.
 * Failed transactions are listed, with no transfers. nextOffset: the page's last signature, when the page is full.
 */
export async function solanaWalletTransactions(deps: Deps, net: ResolvedNetwork, address: string, limit: number, offset?: string): Promise<WalletTransactionsPage> {
  if (offset !== undefined && !BASE58_SIGNATURE.test(offset)) throw badRequest("invalid_offset", "offset is not a transaction signature of a previous page", { field: "offset" });
  const node = deps.chainNodes.solanaHistory(net.endpoint);
  const signatures = await node.signaturesFor(address, limit, offset);
  const records = await node.transactions(signatures.map((s) => s.signature));
  const known = new Map(tokensOfChain("SOL", net.networkId).flatMap((t) => t.tokenAddresses.map((a) => [a.contractAddress, t] as const)));
  const transactions = records.flatMap((r, i) => {
    if (!r) return [];
    const tx = toWalletTransaction(r, address, net, known);
    return [{ ...tx, timestamp: tx.timestamp ?? signatures[i]!.blockTime }];
  });
  return { transactions, ...(signatures.length === limit ? { nextOffset: signatures[signatures.length - 1]!.signature } : {}) };
}
