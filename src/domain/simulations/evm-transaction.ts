import type { Deps } from "../deps.js";
import { resolveNetwork } from "../chains/endpoints.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { parseAddress, parseChainId, parseHexData, parseQuantity } from "./evm-input.js";
import { approvalsOfOutcome, movementsOfOutcome } from "./evm-movements.js";
import { buildReport, type SimulationReport } from "./evm-report.js";
import { revertReason } from "./evm-revert.js";

/** simulateEVMTransaction's request, as the published client sends it (every field a string). */
export interface EvmTransactionRequest {
  chainId: string;
  from: string;
  to: string;
  data: string;
  value: string;
}

/**
 * What the transaction would do if `from` sent it now: run on the latest block by the environment's node
 * for the chain (never sent), its value transfers and token events read into the sender's assets in and
 * out, every account's change, the gas used, and why it would fail. Input is checked before any node is
 * asked (400s); a failing transaction is a report with `validation`, not an error.
 */
export async function simulateEvmTransaction(deps: Deps, env: PublicEnvironment, req: EvmTransactionRequest): Promise<SimulationReport> {
  const call = {
    from: parseAddress("from", req.from),
    to: parseAddress("to", req.to),
    data: parseHexData("data", req.data),
    value: parseQuantity("value", req.value, 0n),
  };
  const chainId = parseChainId(req.chainId);
  const net = await resolveNetwork(deps, env, "EVM", chainId);
  // Not every node refuses a value its sender does not have (Hardhat's traces run it anyway): asked first,
  // so the answer is the same on every node.
  if (call.value > 0n) {
    const balance = await deps.chainNodes.evm(net.endpoint).nativeBalance(call.from);
    if (balance < call.value) {
      const reason = `insufficient funds: ${call.from} holds ${balance} wei, the transaction sends ${call.value}`;
      return buildReport(deps, net, env.organizationId, call.from, {
        movements: [],
        approvals: [],
        gasUsed: 0n,
        validation: { result: "Error", reason, description: `the transaction would fail: ${reason}`, classification: "insufficient_funds" },
      });
    }
  }
  const outcome = await deps.chainNodes.evmSimulator(net.endpoint).simulate(call);
  const reason = outcome.failure ? revertReason(outcome.failure.data, outcome.failure.nodeMessage) : null;
  return buildReport(deps, net, env.organizationId, call.from, {
    movements: movementsOfOutcome(outcome),
    approvals: approvalsOfOutcome(outcome),
    gasUsed: outcome.gasUsed,
    ...(reason === null ? {} : { validation: { result: "Error", reason, description: `the transaction would revert: ${reason}`, classification: "transaction_reverted" } }),
  });
}
