import { badRequest } from "../../errors.js";
import type { GateRuleData } from "../../db/repositories/gates.js";
import { SOLANA_CLUSTERS } from "../chains/solana-clusters.js";
import { CAIP2_NAMESPACE_CHAINS, normalizeWalletAddress } from "../wallets/addresses.js";

/** A rule as the API sends it (already checked against the proto's field rules). */
export interface GateRuleInput {
  type: string;
  /** A CAIP-2 chain id, a chain family of the published client (EVM, ETH, SOL) or "" (EVM). */
  chain: string;
  address?: { contractAddress: string; networkId: number };
  /** amount: a whole number of the token's smallest unit; undefined when not given. */
  filter?: { tokenId: string; amount?: number | string };
}

const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;


/** The published client's rule type `token` is the holding of a fungible token; older callers say tokenBalance. */
export const canonicalType = (type: string) => (type === "tokenBalance" ? "token" : type);

/**
 * The CAIP-2 chain of a rule: given as such, or built from a chain family of the published client and the
 * rule's networkId (EVM/ETH or no chain: eip155:<networkId>; SOL: the cluster of networkId, mainnet when 0).
 */
function caip2Of(chain: string, networkId: number, field: (name: string) => string): string {
  if (CAIP2.test(chain)) return chain;
  if (chain === "" || chain === "EVM" || chain === "ETH") {
    if (!networkId || networkId < 1)
      throw badRequest("network_id_required", "address.networkId (the EVM chain id) is required when chain is not a CAIP-2 chain id", {
        field: field("address.networkId"),
      });
    return `eip155:${networkId}`;
  }
  if (chain === "SOL") {
    const cluster = networkId ? SOLANA_CLUSTERS.find(([id]) => id === networkId) : SOLANA_CLUSTERS[0];
    if (!cluster)
      throw badRequest("invalid_network_id", `networkId ${networkId} is not a Solana cluster (101, 102 or 103)`, { field: field("address.networkId") });
    return `solana:${cluster[1]}`;
  }
  throw badRequest("unsupported_chain", `chain ${chain} is not supported; use EVM, SOL or an eip155 or solana CAIP-2 chain id`, {
    field: field("chain"),
  });
}

/**
 * The network id the published client shows for a rule: the EVM chain id, or the Solana cluster's id
 * (rules stored before Solana clusters had ids keep 0 in storage).
 */
export function networkIdOf(caip2: string, stored: number): number {
  const [namespace, reference] = caip2.split(":");
  if (namespace === "solana") return SOLANA_CLUSTERS.find(([, ref]) => ref === reference)?.[0] ?? stored;
  return stored;
}

/** A minimum amount as given (a JSON number, or a decimal string from older callers), canonical. */
function amountOf(amount: number | string | undefined, field: string): string {
  if (amount === undefined || amount === "") return "1";
  const ok = typeof amount === "number" ? Number.isInteger(amount) && amount >= 0 : /^[0-9]{1,78}$/.test(amount);
  if (!ok) throw badRequest("invalid_amount", "the minimum amount must be a whole number of the token's smallest unit", { field });
  const canonical = BigInt(amount).toString();
  if (canonical === "0") throw badRequest("invalid_amount", "the minimum amount must be at least 1", { field });
  return canonical;
}

/**
 * Checks each rule and returns it canonical: the chain as a CAIP-2 id (built from the client's chain family
 * and networkId when needed), the contract address validated for it (EIP-55 on EVM chains), networkId
 * derived from eip155 chains (and, if given, equal to it), the minimum amount defaulting to 1. 400 when a
 * rule cannot be evaluated.
 */
export function canonicalRules(rules: readonly GateRuleInput[]): GateRuleData[] {
  return rules.map((rule, i) => {
    const field = (name: string) => `rules[${i}].${name}`;
    const type = canonicalType(rule.type);
    const chain = caip2Of(rule.chain, rule.address?.networkId ?? 0, field);
    const [namespace, reference] = chain.split(":") as [string, string];
    const walletsChain = CAIP2_NAMESPACE_CHAINS[namespace];
    if (!walletsChain)
      throw badRequest("unsupported_chain", `chain ${chain} is not supported; use an eip155 or solana CAIP-2 chain id`, {
        field: field("chain"),
      });
    if (!rule.address) throw badRequest("contract_address_required", "address.contractAddress is required", { field: field("address") });
    let contractAddress: string;
    try {
      contractAddress = normalizeWalletAddress(walletsChain, rule.address.contractAddress);
    } catch {
      throw badRequest("invalid_contract_address", `${field("address.contractAddress")} is not a valid ${chain} address`, {
        field: field("address.contractAddress"),
      });
    }
    let networkId = rule.address.networkId;
    if (namespace === "eip155") {
      if (!/^[0-9]{1,10}$/.test(reference) || Number(reference) > 2 ** 31 - 1)
        throw badRequest("invalid_chain", `${chain} is not an eip155 chain id`, { field: field("chain") });
      if (networkId && networkId !== Number(reference))
        throw badRequest("network_id_mismatch", `networkId ${networkId} does not match chain ${chain}`, { field: field("address.networkId") });
      networkId = Number(reference);
    } else {
      networkId = networkIdOf(chain, 0);
    }
    const amount = amountOf(rule.filter?.amount, field("filter.amount"));
    const tokenId = rule.filter?.tokenId || undefined;
    if (tokenId && type !== "nft") throw badRequest("token_id_not_applicable", "tokenId applies to nft rules only", { field: field("filter.tokenId") });
    return {
      type,
      chain,
      address: { contractAddress, networkId: networkId ?? 0 },
      filter: tokenId ? { tokenId, amount } : { amount },
    };
  });
}
