import type { WebhookSettings } from "../../config.js";
import { badRequest } from "../../errors.js";
import { refusalOfBaseUrl } from "../base-urls.js";
import { VENDOR_PROVIDER_KINDS } from "../vendors/port.js";

/**
 * The provider kinds that configure an environment's own vendor of a Sigil protocol (the price source, the
 * ramp provider; src/domain/vendors/endpoint.ts): base_auth_url is the vendor's base URL, client_id the key
 * id, the sealed client secret the signing secret.
 */
const VENDOR_KINDS = new Set<string>(Object.values(VENDOR_PROVIDER_KINDS));

export const isVendorKind = (kind: string) => VENDOR_KINDS.has(kind);

const invalidUrl = (message: string) => badRequest("invalid_vendor_url", message, { field: "baseAuthUrl" });

/**
 * A vendor provider as written must be usable: its URL, key id and secret all set (nothing is ever sent
 * unsigned), and its URL a destination the service may reach for the environment (refusalOfBaseUrl).
 */
export function checkVendorConfiguration(
  p: { provider: string; baseAuthUrl: string | null; clientId: string | null; secretSet: boolean },
  environmentName: "live" | "sandbox",
  webhooks: WebhookSettings,
): void {
  if (!isVendorKind(p.provider)) return;
  if (!p.baseAuthUrl || !p.clientId || !p.secretSet)
    throw badRequest("vendor_credentials_required", `provider ${p.provider} needs baseAuthUrl (the vendor's base URL), clientId (the key id) and clientSecret (the signing secret)`);
  const refused = refusalOfBaseUrl(p.baseAuthUrl, "baseAuthUrl", environmentName, webhooks);
  if (refused) throw invalidUrl(refused);
}
