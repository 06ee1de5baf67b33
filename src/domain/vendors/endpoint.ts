import { createHash } from "node:crypto";
import { findProviderByKind } from "../../db/repositories/providers.js";
import type { Deps } from "../deps.js";
import { clientSecretAad } from "../providers/service.js";
import { vendorNotConfigured, type Vendor } from "../rates/errors.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { VENDOR_PROVIDER_KINDS, type VendorEndpoint } from "./port.js";

/**
 * The vendor serving `env`: its own enabled provider of the kind (the secret opened from its seal), else the
 * operator's, else null. A disabled provider is as good as none: the operator's applies again.
 */
export async function vendorEndpointOf(deps: Pick<Deps, "db" | "sealer" | "config">, env: PublicEnvironment, vendor: Vendor): Promise<VendorEndpoint | null> {
  const own = await findProviderByKind(deps.db, env.environmentId, VENDOR_PROVIDER_KINDS[vendor]);
  if (own?.enabledAt && own.baseAuthUrl && own.clientId && own.clientSecretSealed) {
    const secret = deps.sealer.open(own.clientSecretSealed, clientSecretAad(own.id));
    return { url: own.baseAuthUrl.replace(/\/+$/, ""), keyId: own.clientId, secret, trusted: false, environmentName: env.environmentName };
  }
  const operator = vendor === "price source" ? deps.config.ramps.priceSource : deps.config.ramps.rampProvider;
  return operator ? { ...operator, trusted: true, environmentName: env.environmentName } : null;
}

/** The vendor serving `env`, or 422 not_configured: nothing is made up without one. */
export async function requiredVendorEndpoint(deps: Pick<Deps, "db" | "sealer" | "config">, env: PublicEnvironment, vendor: Vendor): Promise<VendorEndpoint> {
  const endpoint = await vendorEndpointOf(deps, env, vendor);
  if (!endpoint) throw vendorNotConfigured(vendor);
  return endpoint;
}

/**
 * A short name of a vendor account for cache keys: two accounts (two tenants' sources, or a tenant's and the
 * operator's) never share cached answers. The secret is part of it, so a tenant naming another's URL and key
 * id without its secret reads nothing the right secret fetched; only a truncated digest reaches the store.
 */
export const vendorCacheId = (e: VendorEndpoint) => createHash("sha256").update(`${e.trusted}\n${e.url}\n${e.keyId}\n${e.secret}`).digest("hex").slice(0, 32);
