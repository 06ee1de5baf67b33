import { DomainError } from "../../errors.js";
import { resolveNetwork } from "../chains/endpoints.js";
import { notConfigured } from "../chains/errors.js";
import type { Deps } from "../deps.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import type { ContractWalletCheck } from "./evm.js";

/**
 * Smart-contract wallets (ERC-1271, and ERC-6492 for one not deployed yet) prove a SIWE message through the
 * node of the message's own Chain ID, found as balances find theirs (the environment's network entry, the
 * organization's custom network, the operator's default): the account lives on that chain, and a message
 * signed for one chain never signs in through another's node. Only asked when the signature is not the
 * wallet's as an EOA.
 *
 * No node for that chain: a 65-byte signature is answered as any EOA signature that does not verify (422
 * invalid_signature, as before smart wallets were accepted); any other signature can only be a contract's, so
 * 422 not_configured says what is missing. A node that fails: 503 chain_unavailable with Retry-After.
 */
export function contractWalletCheck(deps: Pick<Deps, "db" | "store" | "config" | "chainNodes">, env: PublicEnvironment, chainId: string): ContractWalletCheck {
  return async (hash, signature, address, eoaShaped) => {
    const noNode = () => {
      if (eoaShaped) return false;
      throw notConfigured(`a smart-contract wallet's signature is verified by a node of its chain, and none is configured for chain ${chainId}`, { chainId });
    };
    const id = Number(chainId);
    if (!Number.isSafeInteger(id)) return noNode();
    let endpoint;
    try {
      endpoint = (await resolveNetwork(deps, env, "EVM", id)).endpoint;
    } catch (err) {
      if (err instanceof DomainError && err.code === "not_configured") return noNode();
      throw err;
    }
    return deps.chainNodes.evmAccounts(endpoint).verifyHash(address, hash, signature);
  };
}
