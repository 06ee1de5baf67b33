import { badRequest } from "../../errors.js";
import type { Deps } from "../deps.js";
import type { ResolvedNetwork } from "../chains/endpoints.js";
import type { Erc20Metadata } from "../chains/nodes.js";
import { nativeCurrencyOf } from "../balances/native-currency.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import type { EvmBlockSummary, EvmTransactionSummary, TokenTransferLog } from "./node.js";
import { labelsFor, wholeUnits, type AssetTransfer, type WalletTransaction, type WalletTransactionsPage } from "./transaction.js";

/**
 * Blocks one page reads token transfer logs over (eth_getLogs, filtered by the address): about 3 hours of
 * Ethereum mainnet, and within what public providers allow one filtered query.
 */
export const LOG_WINDOW_BLOCKS = 1000n;
/**
 * The newest blocks of a page's window read whole (eth_getBlockByNumber with transactions) for the address's
 * native transfers: a node keeps no index of senders and receivers, so each block is read, and a block of a
 * busy chain is large. About 4 minutes of Ethereum mainnet.
 */
export const NATIVE_WINDOW_BLOCKS = 20n;

interface Entry {
  hash: string;
  blockNumber: bigint;
  order: number;
  tx?: EvmTransactionSummary;
  logs: TokenTransferLog[];
}

const sameAddress = (a: string | null | undefined, b: string) => !!a && a.toLowerCase() === b.toLowerCase();

/**
 * The address's recent transactions from an EVM node without an index, honestly bounded. A page covers
 * LOG_WINDOW_BLOCKS blocks ending at the head (or below `offset`, a block number from a previous page): the
 * ERC-20, ERC-721 and ERC-1155 transfers from or to the address in that range (their logs, eth_getLogs), and
 * the native transfers and other transactions the address sent or received directly in the newest
 * NATIVE_WINDOW_BLOCKS of it (blocks read whole). Not seen: native value moved by contracts (internal
 * transfers need traces), and direct transactions older than that native window. Newest first; a page holds
 * whole blocks up to `limit` transactions (a single block with more shows its first `limit`). nextOffset: the
 * block to continue below, also when the window held fewer (an empty page with a nextOffset says "nothing in
 * those blocks", not "nothing older").
 */
export async function evmWalletTransactions(deps: Deps, env: PublicEnvironment, net: ResolvedNetwork, address: string, limit: number, offset?: string): Promise<WalletTransactionsPage> {
  if (offset !== undefined && !/^\d{1,20}$/.test(offset)) throw badRequest("invalid_offset", "offset is not a block number of a previous page", { field: "offset" });
  const node = deps.chainNodes.evmHistory(net.endpoint);
  const head = await node.blockNumber();
  const to = offset === undefined ? head : BigInt(offset) - 1n < head ? BigInt(offset) - 1n : head;
  if (to < 0n) return { transactions: [] };
  const from = to - LOG_WINDOW_BLOCKS + 1n > 0n ? to - LOG_WINDOW_BLOCKS + 1n : 0n;
  const nativeFrom = to - NATIVE_WINDOW_BLOCKS + 1n > from ? to - NATIVE_WINDOW_BLOCKS + 1n : from;
  const nativeNumbers = Array.from({ length: Number(to - nativeFrom + 1n) }, (_, i) => to - BigInt(i));
  const [logs, nativeBlocks] = await Promise.all([node.tokenTransfers(address, from, to), node.blocks(nativeNumbers, true)]);

  const entries = new Map<string, Entry>();
  const entry = (hash: string, blockNumber: bigint, order: number) => {
    let e = entries.get(hash);
    if (!e) entries.set(hash, (e = { hash, blockNumber, order, logs: [] }));
    return e;
  };
  for (const block of nativeBlocks)
    for (const tx of block.transactions) if (sameAddress(tx.from, address) || sameAddress(tx.to, address)) entry(tx.hash, block.number, tx.transactionIndex).tx = tx;
  for (const log of logs) {
    const e = entry(log.transactionHash, log.blockNumber, log.logIndex);
    e.logs.push(log);
  }

  // Newest first; whole blocks up to `limit` transactions.
  const sorted = [...entries.values()].sort((a, b) => (a.blockNumber !== b.blockNumber ? (a.blockNumber > b.blockNumber ? -1 : 1) : b.order - a.order));
  const page: Entry[] = [];
  let cutAt: bigint | null = null;
  for (const e of sorted) {
    if (page.length >= limit && e.blockNumber !== page[page.length - 1]!.blockNumber) {
      cutAt = page[page.length - 1]!.blockNumber;
      break;
    }
    if (page.length >= limit) continue;
    page.push(e);
  }
  if (page.length >= limit && cutAt === null && sorted.length > page.length) cutAt = page[page.length - 1]!.blockNumber;
  const nextOffset = cutAt !== null ? cutAt.toString() : from > 0n ? from.toString() : undefined;

  // What the logs do not say: each transaction's sender and receiver, each block's hash and time.
  const missing = page.filter((e) => !e.tx).map((e) => e.hash);
  const byHash = new Map((await node.transactions(missing)).map((t) => [t.hash.toLowerCase(), t]));
  const known = new Map(nativeBlocks.map((b) => [b.number, b]));
  const headerNumbers = [...new Set(page.map((e) => e.blockNumber))].filter((n) => !known.has(n));
  for (const b of await node.blocks(headerNumbers, false)) known.set(b.number, b);
  const metadata = await tokenMetadata(deps, net, page);
  const currency = await nativeCurrencyOf(deps, net, env.organizationId);

  const transactions = page.map((e): WalletTransaction => {
    const tx = e.tx ?? byHash.get(e.hash.toLowerCase());
    const block: EvmBlockSummary | undefined = known.get(e.blockNumber);
    const transfers: AssetTransfer[] = [];
    if (tx && tx.value > 0n)
      transfers.push({ fromAddress: tx.from, toAddress: tx.to ?? "", amount: wholeUnits(tx.value, currency.decimals), metadata: { name: currency.name, symbol: currency.symbol, decimals: currency.decimals } });
    for (const log of e.logs.sort((a, b) => a.logIndex - b.logIndex)) transfers.push(tokenTransfer(log, metadata.get(log.token.toLowerCase()) ?? null));
    return {
      transactionHash: e.hash,
      blockNumber: e.blockNumber,
      timestamp: block ? Number(block.timestamp) : null,
      blockHash: block?.hash ?? "",
      fromAddress: tx?.from ?? "",
      toAddress: tx?.to ?? "",
      labels: labelsFor(address, transfers, sameAddress(tx?.from, address)),
      assetTransfers: transfers,
      chainName: "EVM",
      networkId: net.networkId,
    };
  });
  return { transactions, ...(nextOffset === undefined ? {} : { nextOffset }) };
}

function tokenTransfer(log: TokenTransferLog, meta: Erc20Metadata | null): AssetTransfer {
  const base = { tokenAddress: log.token, fromAddress: log.from, toAddress: log.to };
  if (log.standard === "ERC20" && meta) return { ...base, amount: wholeUnits(log.value, meta.decimals), metadata: { name: meta.name, symbol: meta.symbol, decimals: meta.decimals } };
  // An NFT, or a token whose decimals the node did not answer: its count of base units.
  return { ...base, amount: Number(log.value) };
}

/** ERC-20 name, symbol and decimals of the page's fungible tokens, from the node (null where not an ERC-20). */
async function tokenMetadata(deps: Deps, net: ResolvedNetwork, page: Entry[]): Promise<Map<string, Erc20Metadata | null>> {
  const tokens = [...new Set(page.flatMap((e) => e.logs.filter((l) => l.standard === "ERC20").map((l) => l.token.toLowerCase())))];
  const read = tokens.length > 0 ? await deps.chainNodes.evm(net.endpoint).erc20Metadata(tokens) : [];
  return new Map(tokens.map((t, i) => [t, read[i] ?? null]));
}
