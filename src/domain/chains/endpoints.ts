import { badRequest } from "../../errors.js";
import { findCustomNetworkByChainId } from "../../db/repositories/custom-networks.js";
import { findEnvironmentRecord } from "../../db/repositories/projects.js";
import type { Deps } from "../deps.js";
import { effectiveSettings, type ChainSetting } from "../environments/settings.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { chainAliases } from "../wallets/addresses.js";
import { notConfigured, unsupportedChain } from "./errors.js";
import { checkChainIdentity } from "./identity.js";
import type { ChainEndpoint } from "./nodes.js";
import { isSolanaNetworkId } from "./solana-clusters.js";

/** The chain families Sigil reads from a node. */
export type ChainFamily = "EVM" | "SOL";

/** A network of a family and the node that serves it. */
export interface ResolvedNetwork {
  family: ChainFamily;
  networkId: number;
  endpoint: ChainEndpoint;
}

/** EVM (or its older name ETH) and SOL; any other name, known to the client or not, is 422 unsupported_chain. */
export function chainFamilyOf(chainName: string): ChainFamily {
  if (chainName === "EVM" || chainName === "ETH") return "EVM";
  if (chainName === "SOL") return "SOL";
  throw unsupportedChain(chainName);
}

/** The network a request means when it names none: Ethereum mainnet, Solana mainnet-beta. */
const DEFAULT_NETWORK: Record<ChainFamily, number> = { EVM: 1, SOL: 101 };

/** The stored network entry's node URL, in the JSON form of the environment's ChainNetwork (rpcUrl). */
const rpcUrlOf = (n: unknown): string => {
  const url = (n as { rpcUrl?: unknown }).rpcUrl;
  return typeof url === "string" ? url.trim() : "";
};

/**
 * Which node serves a network of an environment, first found wins:
 * 1. the environment's chain settings (the family's network entry with an rpcUrl);
 * 2. for EVM, the organization's custom network of that chain id (its first RPC URL);
 * 3. the operator's default for the id (SIGIL_EVM_RPC_URLS / SIGIL_SOLANA_RPC_URLS).
 * A family or network the environment turned off, or none of the three: 422 not_configured. With no network
 * id, the family's first enabled network of the settings, else mainnet. A Solana id other than 101-103, or an
 * EVM id that is not a positive integer: 422 unsupported_chain / 400 invalid_network_id. An EVM node that
 * answers for another chain id than the network's: 422 chain_mismatch (src/domain/chains/identity.ts), so
 * no caller ever reads another chain's data.
 */
export async function resolveNetwork(deps: Pick<Deps, "db" | "config" | "store" | "chainNodes">, env: PublicEnvironment, chainName: string, requestedId?: number): Promise<ResolvedNetwork> {
  const net = await locateNetwork(deps, env, chainName, requestedId);
  await checkChainIdentity(deps, net);
  return net;
}

/**
 * The family a request names, after the checks that need no settings: 422 unsupported_chain for a family
 * Sigil does not read or a Solana id other than 101-103, 400 invalid_network_id for an id that is not a
 * positive integer. Callers that answer from a cache run these first, so a bad request never reads as a hit.
 */
export function checkedNetworkRequest(chainName: string, requestedId?: number): ChainFamily {
  const family = chainFamilyOf(chainName);
  if (requestedId !== undefined && (!Number.isSafeInteger(requestedId) || requestedId <= 0))
    throw badRequest("invalid_network_id", "networkId must be a positive integer", { field: "networkId" });
  if (family === "SOL" && requestedId !== undefined && !isSolanaNetworkId(requestedId)) throw unsupportedChain(chainName, requestedId);
  return family;
}

/** Where the network's node is, by the settings alone (resolveNetwork's rules), not yet asked who it is. */
async function locateNetwork(deps: Pick<Deps, "db" | "config">, env: PublicEnvironment, chainName: string, requestedId?: number): Promise<ResolvedNetwork> {
  const family = checkedNetworkRequest(chainName, requestedId);
  const record = await findEnvironmentRecord(deps.db, env.environmentId);
  const settings: ChainSetting[] = record ? effectiveSettings(record.settings).chains.filter((c) => chainAliases(family).includes(c.name)) : [];
  const networks = settings.flatMap((c) => c.networks ?? []);
  const networkId = requestedId ?? (Number(networks.find((n) => n.enabled)?.networkId) || DEFAULT_NETWORK[family]);
  if (family === "SOL" && !isSolanaNetworkId(networkId)) throw unsupportedChain(chainName, networkId);
  const where = { chain: chainName, networkId };
  if (settings.length > 0 && settings.every((c) => !c.enabled)) throw notConfigured(`the environment has ${family} turned off`, where);
  const entry = networks.find((n) => Number(n.networkId) === networkId);
  if (entry && !entry.enabled) throw notConfigured(`the environment has network ${networkId} turned off`, where);
  const fromSettings = entry ? rpcUrlOf(entry) : "";
  if (fromSettings) return { family, networkId, endpoint: { url: fromSettings, trusted: false, environmentName: env.environmentName } };
  if (family === "EVM") {
    const custom = await findCustomNetworkByChainId(deps.db, env.organizationId, networkId);
    if (custom?.rpcUrls[0]) return { family, networkId, endpoint: { url: custom.rpcUrls[0], trusted: false, environmentName: env.environmentName } };
  }
  const operator = (family === "EVM" ? deps.config.chains.evmRpcUrls : deps.config.chains.solanaRpcUrls)[networkId];
  if (operator) return { family, networkId, endpoint: { url: operator, trusted: true, environmentName: env.environmentName } };
  throw notConfigured(`no node is configured for ${family} network ${networkId}`, where);
}
