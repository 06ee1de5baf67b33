import { badRequest, unprocessable } from "../../errors.js";
import type { Deps } from "../deps.js";
import { tokensOfChain } from "../chains/tokens.js";
import type { AssetDiff, SimulatedAsset, SimulationAnswer } from "../simulations/report.js";
import { addSolanaDeltas, noSolanaDeltas, type SolanaDeltas } from "../chains/solana-deltas.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { normalizeWalletAddress } from "../wallets/addresses.js";
import type { SolanaSimulation } from "./node.js";
import { solanaNetworkOf } from "./network.js";
import { decodeWireTransaction, type WireTransaction } from "./wire.js";

/** Transactions one request may simulate: each is a node call, and a wallet's batch is a handful. */
export const MAX_SIMULATED_TRANSACTIONS = 5;

/** SOL's placeholder address, as the balances read names it. */
const SOL_ADDRESS = "11111111111111111111111111111111";

export interface SimulationRequest {
  /** The cluster (see solanaNetworkOf). */
  chain?: string;
  /** Base64 wire transactions, simulated each on its own against the node's current state. */
  transactions: string[];
  /** Whose balance changes are reported. */
  accountAddress: string;
}

/** An asset's net change for the account: base units, negative for a decrease. */
interface AssetChange {
  asset: SimulatedAsset;
  delta: bigint;
}

/** What one transaction's simulation said: its program logs, its error and its cost. */
export interface TransactionSimulation {
  logs: string[];
  /** The node's TransactionError as JSON text; empty when the transaction succeeds. */
  error: string;
  unitsConsumed: number | null;
  fee: bigint | null;
}

/**
 * The client's answer: the assets the account gains (inAssets) and loses (outAssets), each once with one
 * transfer, its change summed over the transactions; the other wallets whose balances the transactions
 * change (counterparties); the first failure (validation: the transactions would not do what they say).
 * Besides: each transaction's simulation.
 */
export interface SimulationResult extends SimulationAnswer {
  validation?: Extract<SimulationAnswer["validation"], { result: "Warning" }>;
  simulations: TransactionSimulation[];
}

/** The node's error as JSON text; its integers (an instruction index, a program's error number) are small. */
export const errorJson = (err: unknown) => JSON.stringify(err, (_k, v) => (typeof v === "bigint" ? Number(v) : v));

/** The error's kind as the node names it: "InstructionError", "InsufficientFundsForFee"... */
const errorKind = (err: unknown) => (typeof err === "string" ? err : err && typeof err === "object" ? (Object.keys(err)[0] ?? "TransactionError") : "TransactionError");

/** Base units as decimal text (exact: no float). */
export function decimalText(raw: bigint, decimals: number): string {
  const negative = raw < 0n;
  const digits = (negative ? -raw : raw).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

function accountAddressOf(address: string): string {
  try {
    return normalizeWalletAddress("SOL", address);
  } catch {
    throw badRequest("invalid_wallet_address", "accountAddress is not a valid Solana address", { field: "accountAddress", chain: "SOL" });
  }
}

/** The transaction's account keys in the node's balance-list order: static ones, then those loaded from lookup tables. */
const keysOf = (wire: WireTransaction, sim: SolanaSimulation) => [...wire.message.staticAccounts, ...(sim.loadedAddresses?.writable ?? []), ...(sim.loadedAddresses?.readonly ?? [])];

/** What a successful simulation moved, from the node's balances before and after. */
const deltasOf = (wire: WireTransaction, sim: SolanaSimulation, into: SolanaDeltas) => addSolanaDeltas(into, { keys: keysOf(wire, sim), ...sim });

/**
 * What transactions would do to an account, from the environment's Solana node (simulateTransaction with
 * replaceRecentBlockhash, no signature check): the SOL and SPL balance changes of `accountAddress` (from the
 * node's balances before and after, the network fee left out), the other wallets whose balances change,
 * and each transaction's logs, error and cost. Transactions are simulated each against the node's current
 * state (a node cannot chain simulations), their changes summed per asset. A transaction that fails moves
 * nothing: its error is the answer's failure and its logs say why.
 */
export async function simulateSolanaTransactions(deps: Deps, env: PublicEnvironment, req: SimulationRequest): Promise<SimulationResult> {
  if (req.transactions.length === 0) throw badRequest("validation_error", "transactions: at least one is required", { errors: [{ field: "transactions", message: "is required" }] });
  if (req.transactions.length > MAX_SIMULATED_TRANSACTIONS)
    throw badRequest("too_many_transactions", `at most ${MAX_SIMULATED_TRANSACTIONS} transactions per request`, { field: "transactions", limit: MAX_SIMULATED_TRANSACTIONS });
  const owner = accountAddressOf(req.accountAddress);
  const wires = req.transactions.map((t, i) => decodeWireTransaction(t, `transactions[${i}]`));
  const net = await solanaNetworkOf(deps, env, req.chain);
  const node = deps.chainNodes.solanaTransactions(net.endpoint);
  const sims = await Promise.all(req.transactions.map((t) => node.simulate(t.trim())));

  const deltas = noSolanaDeltas();
  let failure: SimulationResult["validation"];
  sims.forEach((sim, i) => {
    // A node that runs the transaction but does not report balances cannot say what it moves: no answer
    // rather than an empty one that reads as "moves nothing".
    if ((sim.err === null || sim.err === undefined) && (sim.preBalances === null || sim.postBalances === null))
      throw unprocessable("simulation_unsupported", "the chain's node does not report balances in simulations (Agave 2.3 or later does)", { chain: "SOL", networkId: net.networkId });
    if (sim.err === null || sim.err === undefined) deltasOf(wires[i]!, sim, deltas);
    else failure ??= { result: "Warning", classification: "simulation_failed", reason: errorKind(sim.err), description: `transaction ${i} fails: ${errorJson(sim.err)}` };
  });

  const known = new Map(tokensOfChain("SOL", net.networkId).flatMap((t) => t.tokenAddresses.map((a) => [a.contractAddress, t] as const)));
  const changes: AssetChange[] = [];
  const solDelta = deltas.lamports.get(owner) ?? 0n;
  if (solDelta !== 0n) changes.push({ asset: { address: SOL_ADDRESS, chainId: net.networkId, chainName: "SOL", decimals: 9, logoUrl: "", name: "Solana", symbol: "SOL", type: "NATIVE" }, delta: solDelta });
  for (const t of deltas.tokens.values()) {
    if (t.owner !== owner || t.delta === 0n) continue;
    const k = known.get(t.mint);
    changes.push({ asset: { address: t.mint, chainId: net.networkId, chainName: "SOL", decimals: t.decimals, logoUrl: "", name: k?.name ?? "", symbol: k?.symbol ?? "", type: "SPL" }, delta: t.delta });
  }
  // Counterparties: wallets (not token accounts, not programs) whose balances the transactions change.
  const others = new Set<string>();
  for (const [account, delta] of deltas.lamports) if (delta !== 0n && account !== owner && !deltas.tokenAccounts.has(account)) others.add(account);
  for (const t of deltas.tokens.values()) if (t.delta !== 0n && t.owner !== owner) others.add(t.owner);
  return {
    inAssets: changes.filter((c) => c.delta > 0n).map(assetDiff),
    outAssets: changes.filter((c) => c.delta < 0n).map(assetDiff),
    counterparties: [...others],
    priceData: {},
    showTotalFiat: false,
    ...(failure ? { validation: failure } : {}),
    simulations: sims.map((s) => ({ logs: s.logs, error: s.err === null || s.err === undefined ? "" : errorJson(s.err), unitsConsumed: s.unitsConsumed, fee: s.fee })),
  };
}

/** A net change as the client's AssetDiff: one transfer in (a gain) or out (a loss), its amounts unsigned. */
function assetDiff({ asset, delta }: AssetChange): AssetDiff {
  const raw = delta < 0n ? -delta : delta;
  const value = decimalText(raw, asset.decimals);
  const transfer = { rawValue: raw.toString(), summary: `${delta > 0n ? "Receive" : "Send"} ${value} ${asset.symbol || asset.address}`, value };
  return { asset, transferIn: delta > 0n ? [transfer] : [], transferOut: delta < 0n ? [transfer] : [] };
}
