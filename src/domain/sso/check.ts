import { findSsoProviderForDomain } from "../../db/repositories/sso.js";
import type { Deps } from "../deps.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { normaliseEmail } from "../verifications/email.js";

/** How an address signs in: through its organization's SSO provider, or with a one-time code. */
export type SsoCheck = { type: "sso"; providerId: string; protocol: "oidc" | "saml" } | { type: "otp" };

/**
 * Which SSO provider serves an e-mail address in this environment: the provider of the environment's
 * organization, when one of its domains is the address's domain (both lower-case, the domain in ASCII, so
 * case and IDNA spelling do not matter). Only that exact domain counts, not its subdomains: a provider
 * lists every domain it serves, and a subdomain may belong to someone else (domains are claimed one by one
 * across organizations), so a parent's claim must not route a subdomain's users to another company's
 * identity provider. Another organization's provider is never looked at, so its domains do not leak.
 */
export async function ssoProviderForEmail(deps: Pick<Deps, "db">, env: PublicEnvironment, email: string): Promise<SsoCheck> {
  const address = normaliseEmail(email);
  const domain = address.slice(address.lastIndexOf("@") + 1);
  const provider = await findSsoProviderForDomain(deps.db, env.organizationId, domain);
  return provider ? { type: "sso", providerId: provider.id, protocol: provider.protocol } : { type: "otp" };
}
