import { createHash } from "node:crypto";
import { formatUnits, zeroAddress, type Address } from "viem";
import type { Deps } from "../deps.js";
import { tokenMetadata, TOKEN_METADATA_TTL_SECONDS } from "../balances/account.js";
import { nativeCurrencyOf } from "../balances/native-currency.js";
import type { ResolvedNetwork } from "../chains/endpoints.js";
import type { Approval, AssetType, Movement } from "./evm-movements.js";
import type { AssetDiff, SimulatedAsset, SimulatedTransfer, SimulationAnswer, SimulationValidation } from "./report.js";

export interface BalanceChange {
  address: string;
  asset: SimulatedAsset;
  /** Base units, negative for a decrease. */
  rawDelta: string;
  tokenId?: string;
}

/** What a simulated transaction or user operation would do, from its signer's side (see simulations.proto). */
export interface SimulationReport extends SimulationAnswer {
  validation?: Extract<SimulationValidation, { result: "Error" }>;
  assetExposures: { asset: SimulatedAsset; spenderToInfo: Record<string, { amount: string }> }[];
  gasUsed: string;
  balanceChanges: BalanceChange[];
}

const sha = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 32);
const assetKey = (type: AssetType, token: string | null) => `${type}:${token ?? ""}`;
const short = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`;

/**
 * The assets the movements and approvals name, described: the native currency as the network's (custom
 * network, viem's chain list), ERC-20s by their name, symbol and decimals (cached a day, shared with
 * balances), NFT collections by name and symbol (cached alike). A token that does not answer keeps empty
 * names and 0 decimals: its amounts then read in base units, never scaled by a guess.
 */
async function describeAssets(deps: Deps, net: ResolvedNetwork, organizationId: string, movements: Movement[], approvals: Approval[]): Promise<Map<string, SimulatedAsset>> {
  const base = { chainId: net.networkId, chainName: "EVM" as const, logoUrl: "" };
  const out = new Map<string, SimulatedAsset>();
  if (movements.some((m) => m.type === "NATIVE")) {
    const currency = await nativeCurrencyOf(deps, net, organizationId);
    out.set(assetKey("NATIVE", null), { ...base, address: null, ...currency, type: "NATIVE" });
  }
  const erc20s = [...new Set([...movements.filter((m) => m.type === "ERC20").map((m) => m.token!), ...approvals.map((a) => a.token)])];
  const metadata = await tokenMetadata(deps, net, erc20s);
  erc20s.forEach((token, i) => out.set(assetKey("ERC20", token), { ...base, address: token, name: metadata[i]?.name ?? "", symbol: metadata[i]?.symbol ?? "", decimals: metadata[i]?.decimals ?? 0, type: "ERC20" }));
  const nfts = [...new Map(movements.filter((m) => m.type === "ERC721" || m.type === "ERC1155").map((m) => [assetKey(m.type, m.token), m] as const)).values()];
  const names = await collectionNames(deps, net, [...new Set(nfts.map((m) => m.token!))]);
  for (const m of nfts) out.set(assetKey(m.type, m.token), { ...base, address: m.token, name: names.get(m.token!)?.name ?? "", symbol: names.get(m.token!)?.symbol ?? "", decimals: 0, type: m.type });
  return out;
}

/** NFT collections' names and symbols, cached TOKEN_METADATA_TTL_SECONDS per node URL like ERC-20 metadata. */
async function collectionNames(deps: Deps, net: ResolvedNetwork, contracts: string[]): Promise<Map<string, { name: string; symbol: string }>> {
  const keyOf = (c: string) => `chain-collection:v1:${net.networkId}:${sha(`${net.endpoint.trusted}|${net.endpoint.url}`)}:${c}`;
  const cached = await Promise.all(contracts.map((c) => deps.store.get(keyOf(c))));
  const missing = contracts.filter((_, i) => !cached[i]);
  const read = missing.length > 0 ? await deps.chainNodes.evmSimulator(net.endpoint).collectionNames(missing) : [];
  await Promise.all(missing.map((c, i) => (read[i] ? deps.store.set(keyOf(c), JSON.stringify(read[i]), TOKEN_METADATA_TTL_SECONDS) : undefined)));
  const out = new Map<string, { name: string; symbol: string }>();
  contracts.forEach((c, i) => {
    const found = cached[i] ? (JSON.parse(cached[i]) as { name: string; symbol: string }) : read[missing.indexOf(c)];
    if (found) out.set(c, found);
  });
  return out;
}

function transferOf(m: Movement, asset: SimulatedAsset, direction: "in" | "out"): SimulatedTransfer {
  const what = m.type === "ERC721" || m.type === "ERC1155" ? `${m.type === "ERC1155" ? `${m.amount} × ` : ""}${asset.name || asset.symbol || short(asset.address!)} #${m.tokenId}` : `${formatUnits(m.amount, asset.decimals)} ${asset.symbol || (asset.address ? short(asset.address) : "")}`.trim();
  const summary = direction === "out" ? `Send ${what} to ${m.to === zeroAddress ? "be burnt" : m.to}` : `Receive ${what} from ${m.from === zeroAddress ? "a mint" : m.from}`;
  return {
    rawValue: m.amount.toString(),
    summary,
    value: formatUnits(m.amount, asset.decimals),
    ...(m.tokenId === undefined ? {} : { tokenId: m.tokenId.toString() }),
  };
}

/**
 * The report of a call that ran: the signer's transfers in and out per asset (each transfer once, not
 * netted, as a wallet shows them), the accounts on the other side, the ERC-20 allowances the signer grants,
 * and every account's net change per asset (the zero address, where mints come from and burns go, left out).
 */
export async function buildReport(
  deps: Deps,
  net: ResolvedNetwork,
  organizationId: string,
  signer: Address,
  ran: { movements: Movement[]; approvals: Approval[]; gasUsed: bigint; validation?: SimulationReport["validation"] },
): Promise<SimulationReport> {
  const assets = await describeAssets(deps, net, organizationId, ran.movements, ran.approvals);
  const inAssets = new Map<string, AssetDiff>();
  const outAssets = new Map<string, AssetDiff>();
  const counterparties = new Set<string>();
  const deltas = new Map<string, BalanceChange & { delta: bigint }>();
  const diffOf = (side: Map<string, AssetDiff>, key: string) => {
    let diff = side.get(key);
    if (!diff) side.set(key, (diff = { asset: assets.get(key)!, transferIn: [], transferOut: [] }));
    return diff;
  };
  const addDelta = (address: Address, m: Movement, key: string, delta: bigint) => {
    if (address === zeroAddress) return;
    const id = `${address}|${key}|${m.tokenId ?? ""}`;
    const entry = deltas.get(id) ?? { address, asset: assets.get(key)!, rawDelta: "0", delta: 0n, ...(m.tokenId === undefined ? {} : { tokenId: m.tokenId.toString() }) };
    entry.delta += delta;
    deltas.set(id, entry);
  };
  for (const m of ran.movements) {
    const key = assetKey(m.type, m.token);
    addDelta(m.from, m, key, -m.amount);
    addDelta(m.to, m, key, m.amount);
    if (m.from === m.to) continue;
    if (m.from === signer) {
      diffOf(outAssets, key).transferOut.push(transferOf(m, assets.get(key)!, "out"));
      if (m.to !== zeroAddress) counterparties.add(m.to);
    }
    if (m.to === signer) {
      diffOf(inAssets, key).transferIn.push(transferOf(m, assets.get(key)!, "in"));
      if (m.from !== zeroAddress) counterparties.add(m.from);
    }
  }
  const exposures = new Map<string, SimulationReport["assetExposures"][number]>();
  for (const a of ran.approvals) {
    if (a.owner !== signer) continue;
    const key = assetKey("ERC20", a.token);
    const asset = assets.get(key)!;
    const exposure = exposures.get(key) ?? { asset, spenderToInfo: {} };
    exposure.spenderToInfo[a.spender] = { amount: formatUnits(a.amount, asset.decimals) };
    exposures.set(key, exposure);
  }
  return {
    inAssets: [...inAssets.values()],
    outAssets: [...outAssets.values()],
    counterparties: [...counterparties],
    priceData: {},
    showTotalFiat: false,
    ...(ran.validation ? { validation: ran.validation } : {}),
    assetExposures: [...exposures.values()],
    gasUsed: ran.gasUsed.toString(),
    balanceChanges: [...deltas.values()].filter((d) => d.delta !== 0n).map(({ delta, ...d }) => ({ ...d, rawDelta: delta.toString() })),
  };
}
