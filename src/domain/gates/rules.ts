import { badRequest } from "../../errors.js";
import type { GateRuleData } from "../../db/repositories/gates.js";
import { normalizeWalletAddress } from "../wallets/addresses.js";

/** A rule as the API sends it (already checked against the proto's field rules). */
export interface GateRuleInput {
  type: string;
  chain: string;
  address?: { contractAddress: string; networkId: number };
  filter?: { tokenId: string; amount: string };
}

const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;

/** The CAIP-2 namespaces whose contract addresses we can validate, and the wallets chain that validates them. */
const NAMESPACE_CHAINS: Record<string, string> = { eip155: "EVM", solana: "SOL" };

/**
 * Checks each rule and returns it canonical: the contract address validated for the rule's CAIP-2 chain
 * (EIP-55 on EVM chains), networkId derived from eip155 chains (and, if given, equal to it), the minimum
 * amount defaulting to 1. 400 when a rule cannot be evaluated.
 */
export function canonicalRules(rules: readonly GateRuleInput[]): GateRuleData[] {
  return rules.map((rule, i) => {
    const field = (name: string) => `rules[${i}].${name}`;
    if (!CAIP2.test(rule.chain))
      throw badRequest("invalid_chain", `${rule.chain} is not a CAIP-2 chain id (namespace:reference, e.g. eip155:1)`, { field: field("chain") });
    const [namespace, reference] = rule.chain.split(":") as [string, string];
    const walletsChain = NAMESPACE_CHAINS[namespace];
    if (!walletsChain)
      throw badRequest("unsupported_chain", `chain ${rule.chain} is not supported; use an eip155 or solana CAIP-2 chain id`, {
        field: field("chain"),
      });
    if (!rule.address) throw badRequest("contract_address_required", "address.contractAddress is required", { field: field("address") });
    let contractAddress: string;
    try {
      contractAddress = normalizeWalletAddress(walletsChain, rule.address.contractAddress);
    } catch {
      throw badRequest("invalid_contract_address", `${field("address.contractAddress")} is not a valid ${rule.chain} address`, {
        field: field("address.contractAddress"),
      });
    }
    let networkId = rule.address.networkId;
    if (namespace === "eip155") {
      if (!/^[0-9]{1,10}$/.test(reference) || Number(reference) > 2 ** 31 - 1)
        throw badRequest("invalid_chain", `${rule.chain} is not an eip155 chain id`, { field: field("chain") });
      if (networkId && networkId !== Number(reference))
        throw badRequest("network_id_mismatch", `networkId ${networkId} does not match chain ${rule.chain}`, { field: field("address.networkId") });
      networkId = Number(reference);
    }
    const amount = rule.filter?.amount ? BigInt(rule.filter.amount).toString() : "1";
    if (amount === "0") throw badRequest("invalid_amount", "the minimum amount must be at least 1", { field: field("filter.amount") });
    const tokenId = rule.filter?.tokenId || undefined;
    if (tokenId && rule.type !== "nft") throw badRequest("token_id_not_applicable", "tokenId applies to nft rules only", { field: field("filter.tokenId") });
    return {
      type: rule.type,
      chain: rule.chain,
      address: { contractAddress, networkId: networkId ?? 0 },
      filter: tokenId ? { tokenId, amount } : { amount },
    };
  });
}
