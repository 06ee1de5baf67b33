import type { WebhookSettings } from "../config.js";
import { destinationRules, refusalOfHost } from "../net/destination-policy.js";

/**
 * Why a base URL a tenant writes (a vendor's, an exchange's) is not one the service may call for the
 * environment, or null: an absolute http(s) URL with no user name, password, query or fragment (the
 * protocol's paths are added to it), https for a live environment, and a host the destination policy allows
 * (public addresses only; loopback for a sandbox only while SIGIL_WEBHOOK_SANDBOX_LOOPBACK is on), as a
 * webhook's. Checked when written, so a mistake is a clear 400 at once; the policy is applied again at every
 * connection, to the addresses the host then resolves to.
 */
export function refusalOfBaseUrl(raw: string, field: string, environmentName: "live" | "sandbox", webhooks: WebhookSettings): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return `${field} must be an absolute http(s) URL`;
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return `${field} must be an absolute http(s) URL`;
  if (u.username || u.password) return `${field} must not carry a user name or password`;
  if (u.search || u.hash) return `${field} must not carry a query or fragment (the protocol's paths are added to it)`;
  if (environmentName === "live" && u.protocol !== "https:") return `a live environment's ${field} must use https (http is for sandbox environments)`;
  const refused = refusalOfHost(u, destinationRules(webhooks, environmentName));
  return refused ? `${field} is not an allowed destination: ${refused}` : null;
}
