import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { badRequest } from "../../errors.js";

/**
 * The URL of a webhook endpoint. Live environments need https on a public host name or address; a sandbox
 * may also use http and loopback or private hosts (a developer's machine, a tunnel). Credentials in the URL
 * are never accepted: they would be stored in clear and shown in every read.
 */
export function checkWebhookUrl(raw: string, environmentName: "live" | "sandbox"): string {
  const invalid = (code: string, message: string) => badRequest(code, message, { field: "url" });
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw invalid("invalid_webhook_url", "url must be an absolute http(s) URL");
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") throw invalid("invalid_webhook_url", "url must be an absolute http(s) URL");
  if (u.username || u.password) throw invalid("webhook_url_credentials_not_allowed", "url must not carry a user name or password");
  if (!u.hostname) throw invalid("invalid_webhook_url", "url must name a host");
  if (environmentName === "sandbox") return u.href;
  if (u.protocol !== "https:") throw invalid("webhook_url_https_required", "a live environment's webhooks must use https (http is for sandbox environments)");
  if (isLocalHost(u.hostname))
    throw invalid("webhook_url_host_not_allowed", "a live environment's webhooks must point at a public host (loopback and private hosts are for sandbox environments)");
  return u.href;
}

/**
 * At delivery time, for live environments: the host must not resolve to a loopback, private or link-local
 * address (a public name pointing inwards would otherwise reach the service's own network). Returns the
 * reason to refuse, or null.
 */
export async function privateResolution(url: string): Promise<string | null> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) return isLocalHost(host) ? `${host} is not a public address` : null;
  const addresses = await lookup(host, { all: true }).catch(() => []);
  const inward = addresses.find((a) => isLocalHost(a.address));
  return inward ? `${host} resolves to ${inward.address}, which is not a public address` : null;
}

/** Loopback, private, link-local and unqualified hosts: reachable only from where the service runs. */
export function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal")) return true;
  const kind = isIP(host);
  if (kind === 4) return isLocalIPv4(host);
  if (kind === 6) return isLocalIPv6(host);
  // A single-label name resolves through local search domains only.
  return !host.includes(".");
}

function isLocalIPv4(ip: string): boolean {
  const [a, b] = ip.split(".").map(Number) as [number, number];
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    a >= 224
  );
}

function isLocalIPv6(ip: string): boolean {
  if (ip === "::" || ip === "::1") return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (mapped) return isLocalIPv4(mapped[1]!);
  // The URL parser writes mapped addresses in hex (::ffff:7f00:1).
  const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(ip);
  if (hexMapped) {
    const hi = parseInt(hexMapped[1]!, 16);
    const lo = parseInt(hexMapped[2]!, 16);
    return isLocalIPv4(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  const first = parseInt(ip.split(":")[0] || "0", 16);
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80 || (first & 0xff00) === 0xff00;
}
