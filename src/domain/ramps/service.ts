import { badRequest } from "../../errors.js";
import type { Deps } from "../deps.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { requiredVendorEndpoint } from "../vendors/endpoint.js";
import { normalizeWalletAddress } from "../wallets/addresses.js";
import type { RampOption, RampProvider, RampQuery } from "./provider.js";

export type RampDeps = Pick<Deps, "db" | "sealer" | "config" | "vendors">;

/**
 * The environment's ramp provider (its own provider of kind rampProvider, else the operator's), or 422
 * not_configured: without one there is nothing true to list (never an invented offer).
 */
export async function rampProviderOf(deps: RampDeps, env: PublicEnvironment): Promise<RampProvider> {
  return deps.vendors.rampProvider(await requiredVendorEndpoint(deps, env, "ramp provider"));
}

/** A network id as the client sends it (a decimal string), checked; undefined when absent. */
export function networkIdOf(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (!/^[1-9]\d{0,17}$/.test(raw)) throw badRequest("invalid_network_id", "networkId must be a positive whole number", { field: "networkId" });
  return raw;
}

/** An ISO 4217 code, upper-cased; undefined when absent. */
export function currencyOf(raw: string | undefined, field = "currency"): string | undefined {
  if (!raw) return undefined;
  if (!/^[A-Za-z]{3}$/.test(raw)) throw badRequest("invalid_currency", `${field} must be a three-letter currency code`, { field });
  return raw.toUpperCase();
}

/**
 * The request's wallet in canonical form (EIP-55 for EVM...): the provider is sent the address the user
 * holds, and a typo fails here (400) rather than at the provider's checkout. 400 invalid_chain for a chain
 * Sigil knows nothing of.
 */
export const walletOf = (chain: string, address: string) => normalizeWalletAddress(chain, address);

/** The query of a listing, checked before anything is sent to the provider. */
function rampQuery(q: RampQuery): RampQuery {
  if (q.tokenAmount !== undefined && !(Number.isFinite(q.tokenAmount) && q.tokenAmount > 0))
    throw badRequest("invalid_amount", "tokenAmount must be a positive number", { field: "tokenAmount" });
  return {
    walletAddress: walletOf(q.chain, q.walletAddress),
    chain: q.chain,
    networkId: networkIdOf(q.networkId),
    token: q.token || undefined,
    tokenAmount: q.tokenAmount,
    currency: currencyOf(q.currency),
    merchantName: q.merchantName || undefined,
  };
}

/** The provider's on-ramps for the wallet, each with its signed URL (nothing cached: the URLs carry a fresh timestamp). */
export async function supportedOnramps(deps: RampDeps, env: PublicEnvironment, q: RampQuery): Promise<RampOption[]> {
  const query = rampQuery(q);
  return (await rampProviderOf(deps, env)).onramps(query);
}

/** The provider's off-ramps for the wallet, as supportedOnramps. */
export async function supportedOfframps(deps: RampDeps, env: PublicEnvironment, q: Pick<RampQuery, "walletAddress" | "chain" | "networkId" | "token">): Promise<RampOption[]> {
  const query = rampQuery(q);
  return (await rampProviderOf(deps, env)).offramps(query);
}
