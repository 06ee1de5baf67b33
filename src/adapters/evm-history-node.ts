import { decodeAbiParameters, getAddress, pad, toEventSelector, type Address, type Hex } from "viem";
import type { ChainSettings } from "../config-chains.js";
import type { ChainEndpoint } from "../domain/chains/nodes.js";
import type { EvmHistoryNode, EvmTransactionSummary, TokenTransferLog } from "../domain/wallet-transactions/node.js";
import { asChainError } from "./chain-errors.js";
import type { ChainPost } from "./chain-http.js";
import { evmPublicClient } from "./evm-node.js";

/** ERC-20 and ERC-721 share it; an ERC-721's token id is its fourth (indexed) topic. */
const TRANSFER = toEventSelector("Transfer(address,address,uint256)");
const TRANSFER_SINGLE = toEventSelector("TransferSingle(address,address,address,uint256,uint256)");
const TRANSFER_BATCH = toEventSelector("TransferBatch(address,address,address,uint256[],uint256[])");

interface RawLog {
  address: Address;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  transactionHash: Hex;
  logIndex: Hex;
  removed?: boolean;
}

/** The address in an indexed topic, EIP-55 (as the domain compares addresses). */
const topicAddress = (topic: Hex | undefined): string => getAddress(`0x${(topic ?? "").slice(-40)}`);

/** A raw transfer log as one entry per token id moved; a log of another shape is skipped. */
function decodeLog(log: RawLog): TokenTransferLog[] {
  const at = { token: getAddress(log.address), blockNumber: BigInt(log.blockNumber), transactionHash: log.transactionHash, logIndex: Number(log.logIndex) };
  const [topic0, t1, t2, t3] = log.topics;
  try {
    if (topic0 === TRANSFER && log.topics.length === 3) {
      const [value] = decodeAbiParameters([{ type: "uint256" }], log.data);
      return [{ ...at, standard: "ERC20", from: topicAddress(t1), to: topicAddress(t2), value, tokenId: null }];
    }
    if (topic0 === TRANSFER && log.topics.length === 4) return [{ ...at, standard: "ERC721", from: topicAddress(t1), to: topicAddress(t2), value: 1n, tokenId: BigInt(t3!) }];
    if (topic0 === TRANSFER_SINGLE && log.topics.length === 4) {
      const [id, value] = decodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], log.data);
      return [{ ...at, standard: "ERC1155", from: topicAddress(t2), to: topicAddress(t3), value, tokenId: id }];
    }
    if (topic0 === TRANSFER_BATCH && log.topics.length === 4) {
      const [ids, values] = decodeAbiParameters([{ type: "uint256[]" }, { type: "uint256[]" }], log.data);
      return ids.map((id, i) => ({ ...at, standard: "ERC1155" as const, from: topicAddress(t2), to: topicAddress(t3), value: values[i] ?? 0n, tokenId: id }));
    }
  } catch {
    // A log whose data does not decode as the standard's is not a transfer we can read.
  }
  return [];
}

/**
 * An EVM node's history reads through viem (our bounded transport, src/adapters/chain-http.ts): eth_blockNumber,
 * eth_getLogs of the transfer events filtered by the address in each of its topic positions, blocks and
 * transactions by number and hash.
 */
export function createEvmHistoryNode(endpoint: ChainEndpoint, post: ChainPost, settings: ChainSettings): EvmHistoryNode {
  const client = evmPublicClient(endpoint, post, settings);
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      throw asChainError(err);
    }
  };
  const summary = (tx: { hash: Hex; from: Address; to: Address | null; value: bigint; blockNumber: bigint | null; transactionIndex: number | null }): EvmTransactionSummary => ({
    hash: tx.hash,
    from: getAddress(tx.from),
    to: tx.to ? getAddress(tx.to) : null,
    value: tx.value,
    blockNumber: tx.blockNumber ?? 0n,
    transactionIndex: tx.transactionIndex ?? 0,
  });
  return {
    blockNumber: () => call(() => client.getBlockNumber({ cacheTime: 0 })),
    async tokenTransfers(address, fromBlock, toBlock) {
      const who = pad(address as Hex, { size: 32 }).toLowerCase() as Hex;
      const range = { fromBlock: `0x${fromBlock.toString(16)}`, toBlock: `0x${toBlock.toString(16)}` };
      const queries: (Hex | Hex[] | null)[][] = [
        [TRANSFER, who],
        [TRANSFER, null, who],
        [[TRANSFER_SINGLE, TRANSFER_BATCH], null, who],
        [[TRANSFER_SINGLE, TRANSFER_BATCH], null, null, who],
      ];
      const results = await call(() => Promise.all(queries.map((topics) => client.request({ method: "eth_getLogs", params: [{ ...range, topics }] } as never) as Promise<RawLog[]>)));
      const seen = new Set<string>();
      return results.flat().flatMap((log) => {
        const key = `${log.transactionHash}:${log.logIndex}`;
        if (log.removed || seen.has(key)) return [];
        seen.add(key);
        return decodeLog(log);
      });
    },
    async blocks(numbers, withTransactions) {
      const blocks = await call(() => Promise.all(numbers.map((blockNumber) => client.getBlock({ blockNumber, includeTransactions: withTransactions }))));
      return blocks.map((b) => ({
        number: b.number ?? 0n,
        hash: b.hash ?? "",
        timestamp: b.timestamp,
        transactions: withTransactions ? (b.transactions as Parameters<typeof summary>[0][]).map(summary) : [],
      }));
    },
    async transactions(hashes) {
      const txs = await call(() => Promise.all(hashes.map((hash) => client.getTransaction({ hash: hash as Hex }))));
      return txs.map(summary);
    },
  };
}
