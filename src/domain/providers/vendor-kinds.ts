import type { WebhookSettings } from "../../config.js";
import { badRequest } from "../../errors.js";
import { destinationRules, refusalOfHost } from "../../net/destination-policy.js";
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
 * unsigned), and its URL a destination the service may reach for the environment, as a webhook's is
 * (https and a public host for live; loopback for a sandbox only while SIGIL_WEBHOOK_SANDBOX_LOOPBACK is
 * on). Checked again at every connection, to the addresses the host then resolves to.
 */
export function checkVendorConfiguration(
  p: { provider: string; baseAuthUrl: string | null; clientId: string | null; secretSet: boolean },
  environmentName: "live" | "sandbox",
  webhooks: WebhookSettings,
): void {
  if (!isVendorKind(p.provider)) return;
  if (!p.baseAuthUrl || !p.clientId || !p.secretSet)
    throw badRequest("vendor_credentials_required", `provider ${p.provider} needs baseAuthUrl (the vendor's base URL), clientId (the key id) and clientSecret (the signing secret)`);
  let u: URL;
  try {
    u = new URL(p.baseAuthUrl);
  } catch {
    throw invalidUrl("baseAuthUrl must be an absolute http(s) URL");
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") throw invalidUrl("baseAuthUrl must be an absolute http(s) URL");
  if (u.username || u.password) throw invalidUrl("baseAuthUrl must not carry a user name or password");
  if (u.search || u.hash) throw invalidUrl("baseAuthUrl must not carry a query or fragment (the protocol's paths are added to it)");
  const rules = destinationRules(webhooks, environmentName);
  if (environmentName === "live" && u.protocol !== "https:") throw invalidUrl("a live environment's vendor URL must use https (http is for sandbox environments)");
  const refused = refusalOfHost(u, rules);
  if (refused) throw invalidUrl(`baseAuthUrl is not an allowed destination: ${refused}`);
}
