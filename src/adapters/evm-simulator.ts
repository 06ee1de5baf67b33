import { erc721Abi, getAddress, hexToBigInt, isAddressEqual, numberToHex, type Hex } from "viem";
import type { ChainSettings } from "../config-chains.js";
import { DomainError } from "../errors.js";
import type { ChainEndpoint } from "../domain/chains/nodes.js";
import type { EvmCall, EvmCallOutcome, EvmLog, EvmSimulator, NativeTransfer } from "../domain/simulations/evm-simulator.js";
import { asChainError } from "./chain-errors.js";
import type { ChainPost } from "./chain-http.js";
import { evmPublicClient } from "./evm-node.js";

/** A frame of geth's call tracer (debug_traceCall with tracer "callTracer", withLog), as EDR answers it too. */
interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: Hex;
  gasUsed?: Hex;
  output?: Hex;
  error?: string;
  revertReason?: string;
  logs?: (EvmLog & { position?: Hex })[];
  calls?: CallFrame[];
}

/** One call's answer of eth_simulateV1. */
interface SimulatedCall {
  status: Hex;
  returnData?: Hex;
  gasUsed: Hex;
  logs?: EvmLog[];
  error?: { code?: number; message?: string; data?: Hex };
}

/** The pseudo-token eth_simulateV1's traceTransfers emits ERC-20 Transfer logs from for native value moves. */
const NATIVE_TRANSFER_EMITTER = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE";
const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
/** Frame types whose value leaves the caller (a DELEGATECALL's or CALLCODE's value stays with it; a STATICCALL has none). */
const VALUE_MOVING_FRAMES = new Set(["CALL", "CREATE", "CREATE2", "SELFDESTRUCT"]);
/** Node URLs known to lack eth_simulateV1, so each call after the first goes straight to debug_traceCall. */
const withoutSimulateV1 = new Set<string>();
const MAX_REMEMBERED_NODES = 1024;

/**
 * Whether a JSON-RPC error says the method does not exist here (geth -32601, EDR and others -32004 "not
 * supported"), as opposed to the node failing: only then is the other method tried.
 */
function isMethodMissing(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 10; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof DomainError) return false;
    const code = (e as { code?: unknown }).code;
    if (code === -32601 || code === -32004) return true;
    const message = String((e as { details?: unknown }).details ?? "");
    if (/method .*(not (supported|available|found)|does not exist)/i.test(message)) return true;
  }
  return false;
}

const addr = (a: string) => getAddress(a);

/**
 * Walks a call tree in execution order: a frame's logs interleave with its subcalls by `position` (the
 * number of subcalls made before the log); a frame that failed, and everything under it, changed nothing.
 */
function collect(frame: CallFrame, logs: EvmLog[], transfers: NativeTransfer[]) {
  if (frame.error) return;
  const value = frame.value ? hexToBigInt(frame.value) : 0n;
  if (value > 0n && frame.to && VALUE_MOVING_FRAMES.has(frame.type)) transfers.push({ from: addr(frame.from), to: addr(frame.to), value });
  const own = frame.logs ?? [];
  const calls = frame.calls ?? [];
  const at = (log: { position?: Hex }) => (log.position === undefined ? 0 : Number(log.position));
  for (let i = 0; i <= calls.length; i++) {
    for (const log of own) if (at(log) === i) logs.push({ address: addr(log.address), topics: log.topics, data: log.data });
    if (i < calls.length) collect(calls[i]!, logs, transfers);
  }
  // A log whose position lies beyond the subcalls (a tracer that counts otherwise) still counts, last.
  for (const log of own) if (at(log) > calls.length) logs.push({ address: addr(log.address), topics: log.topics, data: log.data });
}

function fromTrace(root: CallFrame): EvmCallOutcome {
  const gasUsed = root.gasUsed ? hexToBigInt(root.gasUsed) : 0n;
  if (root.error) return { gasUsed, failure: { data: root.output ?? "0x", nodeMessage: root.revertReason ?? root.error }, logs: [], nativeTransfers: [] };
  const logs: EvmLog[] = [];
  const nativeTransfers: NativeTransfer[] = [];
  collect(root, logs, nativeTransfers);
  return { gasUsed, logs, nativeTransfers };
}

function fromSimulateV1(call: SimulatedCall): EvmCallOutcome {
  const gasUsed = hexToBigInt(call.gasUsed);
  if (call.status !== "0x1")
    return { gasUsed, failure: { data: call.error?.data ?? call.returnData ?? "0x", nodeMessage: call.error?.message ?? "execution reverted" }, logs: [], nativeTransfers: [] };
  const logs: EvmLog[] = [];
  const nativeTransfers: NativeTransfer[] = [];
  for (const log of call.logs ?? []) {
    if (isAddressEqual(log.address as Hex, NATIVE_TRANSFER_EMITTER) && log.topics[0] === TRANSFER_TOPIC && log.topics.length === 3) {
      nativeTransfers.push({ from: addr(`0x${log.topics[1]!.slice(26)}`), to: addr(`0x${log.topics[2]!.slice(26)}`), value: hexToBigInt(log.data) });
    } else {
      logs.push({ address: addr(log.address), topics: log.topics, data: log.data });
    }
  }
  return { gasUsed, logs, nativeTransfers };
}

/**
 * Simulations on an EVM node, through the same bounded HTTP as balances (deadline, response size, destination
 * policy). eth_simulateV1 with traceTransfers where the node has it (its native moves come back as logs);
 * else, and from then on for that node, debug_traceCall with the call tracer and its logs (Hardhat's EDR,
 * Anvil, most geth deployments with the debug namespace). A node with neither: 503 chain_unavailable.
 */
export function createEvmSimulator(endpoint: ChainEndpoint, post: ChainPost, settings: ChainSettings): EvmSimulator {
  const client = evmPublicClient(endpoint, post, settings);
  const request = (method: string, params: unknown[]) => client.request({ method, params } as never) as Promise<unknown>;
  return {
    async simulate(call: EvmCall) {
      const tx = { from: call.from, to: call.to, data: call.data, value: numberToHex(call.value) };
      if (!withoutSimulateV1.has(endpoint.url)) {
        try {
          const blocks = (await request("eth_simulateV1", [{ blockStateCalls: [{ calls: [tx] }], traceTransfers: true, validation: false }, "latest"])) as { calls: SimulatedCall[] }[];
          const first = blocks?.[0]?.calls?.[0];
          if (!first) throw asChainError(new Error("eth_simulateV1 answered no call"));
          return fromSimulateV1(first);
        } catch (err) {
          if (!isMethodMissing(err)) throw asChainError(err);
          if (withoutSimulateV1.size >= MAX_REMEMBERED_NODES) withoutSimulateV1.clear();
          withoutSimulateV1.add(endpoint.url);
        }
      }
      try {
        const root = (await request("debug_traceCall", [tx, "latest", { tracer: "callTracer", tracerConfig: { withLog: true } }])) as CallFrame;
        if (!root || typeof root.type !== "string") throw new Error("debug_traceCall answered no call frame");
        return fromTrace(root);
      } catch (err) {
        throw asChainError(err);
      }
    },
    async collectionNames(contracts) {
      if (contracts.length === 0) return [];
      const fields = ["name", "symbol"] as const;
      try {
        const results = await client.multicall({
          contracts: contracts.flatMap((c) => fields.map((functionName) => ({ address: c as Hex, abi: erc721Abi, functionName }))),
          allowFailure: true,
          deployless: true,
          batchSize: settings.multicallBatchBytes,
        });
        return contracts.map((_, i) => {
          const [name, symbol] = results.slice(i * 2, i * 2 + 2).map((r) => (r.status === "success" && typeof r.result === "string" ? r.result : ""));
          return name || symbol ? { name: name!, symbol: symbol! } : null;
        });
      } catch (err) {
        throw asChainError(err);
      }
    },
    async hasCode(address) {
      try {
        const code = await client.getCode({ address: address as Hex });
        return code !== undefined && code !== "0x";
      } catch (err) {
        throw asChainError(err);
      }
    },
  };
}
