import type { Deps } from "../deps.js";
import { resolveNetwork, type ResolvedNetwork } from "../chains/endpoints.js";
import { unsupportedChain } from "../chains/errors.js";
import { solanaNetworkIdOf } from "../chains/solana-clusters.js";
import type { PublicEnvironment } from "../tenancy/access.js";

/** Names a request may give the Solana family itself (the environment's default cluster is read). */
const FAMILY_NAMES = new Set(["sol", "solana"]);

/**
 * The Solana network a simulation or optimization request means: `chain` names a cluster as the client may
 * (its network id "103", its name "devnet", its CAIP-2 id "solana:EtWT…"), or only the family ("SOL",
 * "solana"): the environment's first enabled Solana network, else mainnet-beta. Anything else: 422
 * unsupported_chain. The node comes from resolveNetwork (settings, then the operator's default).
 */
export async function solanaNetworkOf(deps: Deps, env: PublicEnvironment, chain: string | undefined): Promise<ResolvedNetwork> {
  const named = (chain ?? "").trim();
  if (named === "" || FAMILY_NAMES.has(named.toLowerCase())) return resolveNetwork(deps, env, "SOL");
  const networkId = solanaNetworkIdOf(named);
  if (networkId === undefined) throw unsupportedChain(named.slice(0, 64));
  return resolveNetwork(deps, env, "SOL", networkId);
}
