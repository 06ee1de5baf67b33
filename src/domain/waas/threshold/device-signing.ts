import type { Deps } from "../../deps.js";
import type { WaasChain } from "./share-operations.js";
import { enforceSigningPolicy, prepareSignature, type SignMessageInput } from "../sign-request.js";

export type { SignMessageInput };

/**
 * What a signing room is asked to sign, as the room keeps it: EVM wallets sign a 32-byte digest with ECDSA,
 * Solana wallets sign the exact message bytes with FROST (ed25519); a transaction's serialized form stays
 * with it, so that the signed transaction can be answered too. The environment's WaaS policy is applied
 * here, before any room opens: a denied request never reaches the wallet's key shares.
 */
export async function prepareSigning(deps: Pick<Deps, "db">, environmentId: string, chain: WaasChain, input: SignMessageInput): Promise<Record<string, unknown>> {
  const { prepared, requests } = prepareSignature(chain, input);
  await enforceSigningPolicy(deps, environmentId, requests);
  if (prepared.scheme === "ecdsa-secp256k1") {
    return { scheme: "ecdsa", digest: prepared.digest, kind: prepared.kind, ...(prepared.serialized ? { serialized: prepared.serialized } : {}) };
  }
  const serialized = prepared.kind === "transaction" ? input.context?.svmTransaction?.serializedTransactions[0] : undefined;
  return { scheme: "frost-ed25519", message: prepared.message, kind: prepared.kind, ...(serialized ? { serialized } : {}) };
}
