import { decodeEventLog, encodeFunctionData, getAddress, keccak256, slice, stringToHex, type Address, type Hex } from "viem";
import { entryPoint08Abi } from "viem/account-abstraction";
import { unprocessable } from "../../errors.js";
import type { Deps } from "../deps.js";
import { resolveNetwork } from "../chains/endpoints.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { parseAddress, parseChainId } from "./evm-input.js";
import { approvalsOfOutcome, movementsOfOutcome } from "./evm-movements.js";
import { buildReport, type SimulationReport } from "./evm-report.js";
import { revertReason } from "./evm-revert.js";
import type { EvmLog } from "./evm-simulator.js";
import { packUserOperation } from "./evm-user-op-input.js";

/** simulateUserOp's request, as the published client sends it. */
export interface UserOpRequest {
  chainId: string;
  entryPoint: string;
  operation: unknown;
}

/**
 * The bundler the simulated handleOps comes from and pays: an address derived from a fixed phrase, which no
 * one holds a key for, so its compensation never reads as anyone's income.
 */
const SIMULATED_BUNDLER: Address = getAddress(slice(keccak256(stringToHex("sigil: the simulated ERC-4337 bundler")), 12));

/** What the EntryPoint's events say about the operation: its gas, and why its call failed when it did. */
function readEntryPointEvents(logs: EvmLog[], entryPoint: Address, sender: Address): { gasUsed?: bigint; validation?: SimulationReport["validation"] } {
  let gasUsed: bigint | undefined;
  let failure: string | undefined;
  let succeeded = true;
  for (const log of logs) {
    if (log.address !== entryPoint) continue;
    let event;
    try {
      event = decodeEventLog({ abi: entryPoint08Abi, data: log.data, topics: log.topics as [Hex, ...Hex[]] });
    } catch {
      continue;
    }
    const args = (event.args ?? {}) as Record<string, unknown>;
    if (args.sender !== undefined && getAddress(args.sender as string) !== sender) continue;
    if (event.eventName === "UserOperationEvent") {
      gasUsed = args.actualGasUsed as bigint;
      succeeded = args.success as boolean;
    }
    if (event.eventName === "UserOperationRevertReason") failure = revertReason(args.revertReason as Hex, "the account's call reverted");
    if (event.eventName === "PostOpRevertReason") failure = `the paymaster's postOp reverted: ${revertReason(args.revertReason as Hex, "no reason given")}`;
  }
  if (succeeded) return { gasUsed };
  const reason = failure ?? "the account's call reverted";
  return { gasUsed, validation: { result: "Error", reason, description: `the user operation would be paid for but its call would revert: ${reason}`, classification: "user_operation_call_reverted" } };
}

/**
 * What the user operation would do: the EntryPoint's handleOps run on the latest block with this operation
 * alone, from a bundler that holds nothing, as a bundler would submit it (never sent). The account is
 * created by its factory when the operation carries one, its validation and signature are checked, the gas
 * is paid from its deposit or balance (or its paymaster's). The report is the sender's, decoded as for a
 * transaction; an operation the EntryPoint refuses is reported with its FailedOp reason.
 */
export async function simulateUserOperation(deps: Deps, env: PublicEnvironment, req: UserOpRequest): Promise<SimulationReport> {
  const entryPoint = parseAddress("entryPoint", req.entryPoint);
  const op = packUserOperation(req.operation);
  const chainId = parseChainId(req.chainId);
  const net = await resolveNetwork(deps, env, "EVM", chainId);
  const simulator = deps.chainNodes.evmSimulator(net.endpoint);
  if (!(await simulator.hasCode(entryPoint)))
    throw unprocessable("entry_point_not_deployed", `no contract is deployed at ${entryPoint} on chain ${chainId}`, { field: "entryPoint", chainId });
  const data = encodeFunctionData({ abi: entryPoint08Abi, functionName: "handleOps", args: [[op], SIMULATED_BUNDLER] });
  const outcome = await simulator.simulate({ from: SIMULATED_BUNDLER, to: entryPoint, data, value: 0n });
  if (outcome.failure) {
    const reason = revertReason(outcome.failure.data, outcome.failure.nodeMessage);
    return buildReport(deps, net, env.organizationId, op.sender, {
      movements: [],
      approvals: [],
      gasUsed: outcome.gasUsed,
      validation: { result: "Error", reason, description: `the EntryPoint would refuse the user operation: ${reason}`, classification: "user_operation_failed" },
    });
  }
  const events = readEntryPointEvents(outcome.logs, entryPoint, op.sender);
  return buildReport(deps, net, env.organizationId, op.sender, {
    movements: movementsOfOutcome(outcome),
    approvals: approvalsOfOutcome(outcome),
    gasUsed: events.gasUsed ?? outcome.gasUsed,
    ...(events.validation ? { validation: events.validation } : {}),
  });
}
