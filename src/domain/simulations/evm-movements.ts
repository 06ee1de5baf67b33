import { decodeAbiParameters, getAddress, hexToBigInt, type Address, type Hex } from "viem";
import type { EvmCallOutcome, EvmLog } from "./evm-simulator.js";

export type AssetType = "NATIVE" | "ERC20" | "ERC721" | "ERC1155";

/** One asset moving from one account to another; a mint comes from, and a burn goes to, the zero address. */
export interface Movement {
  type: AssetType;
  /** The token contract; null for the native currency. */
  token: Address | null;
  from: Address;
  to: Address;
  /** Base units; 1 for an ERC-721 token. */
  amount: bigint;
  tokenId?: bigint;
}

/** An ERC-20 allowance the call grants (Approval event). */
export interface Approval {
  token: Address;
  owner: Address;
  spender: Address;
  amount: bigint;
}

// Event topics: Transfer(address,address,uint256) (ERC-20 with the amount in data, ERC-721 with the token id
// as a fourth topic), Approval(address,address,uint256) likewise, and ERC-1155's TransferSingle and TransferBatch.
const TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const APPROVAL = "0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925";
const TRANSFER_SINGLE = "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62";
const TRANSFER_BATCH = "0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb";

const topicAddress = (topic: Hex) => getAddress(`0x${topic.slice(26)}`);

/** The transfers one log says happened; a log that is none of the standard events (or malformed) says none. */
function movementsOf(log: EvmLog): Movement[] {
  const [topic0, t1, t2, t3] = log.topics;
  const token = getAddress(log.address);
  try {
    if (topic0 === TRANSFER && log.topics.length === 3 && t1 && t2 && log.data.length === 66)
      return [{ type: "ERC20", token, from: topicAddress(t1), to: topicAddress(t2), amount: hexToBigInt(log.data) }];
    if (topic0 === TRANSFER && log.topics.length === 4 && t1 && t2 && t3)
      return [{ type: "ERC721", token, from: topicAddress(t1), to: topicAddress(t2), amount: 1n, tokenId: hexToBigInt(t3) }];
    if (topic0 === TRANSFER_SINGLE && log.topics.length === 4 && t2 && t3) {
      const [id, amount] = decodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], log.data);
      return [{ type: "ERC1155", token, from: topicAddress(t2), to: topicAddress(t3), amount, tokenId: id }];
    }
    if (topic0 === TRANSFER_BATCH && log.topics.length === 4 && t2 && t3) {
      const [ids, amounts] = decodeAbiParameters([{ type: "uint256[]" }, { type: "uint256[]" }], log.data);
      return ids.map((id, i) => ({ type: "ERC1155" as const, token, from: topicAddress(t2), to: topicAddress(t3), amount: amounts[i] ?? 0n, tokenId: id }));
    }
  } catch {
    // A contract that emits a standard topic with another layout moves nothing we can read.
  }
  return [];
}

/** Every movement of the call, in execution order of the kinds: the native ones (call values), then the logs'. */
export function movementsOfOutcome(outcome: EvmCallOutcome): Movement[] {
  return [
    ...outcome.nativeTransfers.map((t): Movement => ({ type: "NATIVE", token: null, from: getAddress(t.from), to: getAddress(t.to), amount: t.value })),
    ...outcome.logs.flatMap(movementsOf),
  ].filter((m) => m.amount > 0n);
}

/** The ERC-20 allowances the call sets (an ERC-721 Approval has a fourth topic and is not one). */
export function approvalsOfOutcome(outcome: EvmCallOutcome): Approval[] {
  return outcome.logs.flatMap((log) => {
    const [topic0, t1, t2] = log.topics;
    if (topic0 !== APPROVAL || log.topics.length !== 3 || !t1 || !t2 || log.data.length !== 66) return [];
    return [{ token: getAddress(log.address), owner: topicAddress(t1), spender: topicAddress(t2), amount: hexToBigInt(log.data) }];
  });
}
