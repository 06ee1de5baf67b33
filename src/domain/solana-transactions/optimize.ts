import { badRequest, unprocessable } from "../../errors.js";
import type { Deps } from "../deps.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { normalizeWalletAddress } from "../wallets/addresses.js";
import { MAX_COMPUTE_UNIT_LIMIT, withComputeBudget } from "./compute-budget.js";
import { solanaNetworkOf } from "./network.js";
import { errorJson } from "./simulate.js";
import { decodeWireTransaction, signersOf, unsignedWireTransaction, writableStaticAccounts } from "./wire.js";

/**
 * The margin over the units a simulation consumed: a transaction's cost varies a little with the state it
 * meets when it lands (an account created meanwhile, a longer search), and one that runs out fails.
 */
export const COMPUTE_UNIT_MARGIN = 0.1;
/** getRecentPrioritizationFees takes at most 128 accounts. */
const MAX_FEE_ACCOUNTS = 128;
/** The logs a failed simulation's error carries: the last ones say why. */
const FAILURE_LOG_LINES = 20;

export interface OptimizeRequest {
  /** Base64 wire transaction. */
  transaction: string;
  /** The wallet that will sign it (one of its signers). */
  address: string;
}

/** The median of the recent blocks' fees, the upper one of an even count; zero when the node knows none. */
export function medianFee(fees: readonly bigint[]): bigint {
  if (fees.length === 0) return 0n;
  const sorted = [...fees].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * A transaction with its compute budget set from the environment's default Solana node: the priority fee is
 * the median of the recent blocks' prioritization fees over the transaction's writable static accounts
 * (getRecentPrioritizationFees; micro-lamports per compute unit), and the compute-unit limit the units a
 * simulation of the transaction (with that fee, at the largest limit) consumed plus COMPUTE_UNIT_MARGIN,
 * rounded up, at most 1,400,000. Its SetComputeUnitLimit / SetComputeUnitPrice instructions are replaced
 * (withComputeBudget). The answer's signature slots are empty: the message changed, so it is signed anew.
 * A transaction whose simulation fails answers 422 simulation_failed with the node's error and logs (an
 * instruction index in the error counts the compute-budget instructions set first).
 */
export async function optimizeSolanaTransaction(deps: Deps, env: PublicEnvironment, req: OptimizeRequest): Promise<{ transaction: string; computeUnitLimit: number; computeUnitPrice: bigint }> {
  let signer: string;
  try {
    signer = normalizeWalletAddress("SOL", req.address);
  } catch {
    throw badRequest("invalid_wallet_address", "address is not a valid Solana address", { field: "address", chain: "SOL" });
  }
  const { message } = decodeWireTransaction(req.transaction, "transaction");
  if (!signersOf(message).includes(signer)) throw badRequest("address_not_signer", "address does not sign this transaction", { field: "address" });
  const net = await solanaNetworkOf(deps, env, undefined);
  const node = deps.chainNodes.solanaTransactions(net.endpoint);
  const price = medianFee(await node.recentPrioritizationFees(writableStaticAccounts(message).slice(0, MAX_FEE_ACCOUNTS)));
  const trial = withComputeBudget(message, MAX_COMPUTE_UNIT_LIMIT, price);
  const sim = await node.simulate(unsignedWireTransaction(trial));
  if (sim.err !== null && sim.err !== undefined)
    throw unprocessable("simulation_failed", "the transaction fails when simulated; nothing to optimize", {
      error: JSON.parse(errorJson(sim.err)),
      logs: sim.logs.slice(-FAILURE_LOG_LINES),
    });
  if (sim.unitsConsumed === null) throw unprocessable("simulation_failed", "the node did not report the units the transaction consumes", {});
  const units = Math.min(MAX_COMPUTE_UNIT_LIMIT, Math.ceil(sim.unitsConsumed * (1 + COMPUTE_UNIT_MARGIN)));
  return { transaction: unsignedWireTransaction(withComputeBudget(message, units, price)), computeUnitLimit: units, computeUnitPrice: price };
}
