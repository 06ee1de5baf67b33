import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import type { WebhookSettings } from "../config.js";
import { badRequest } from "../errors.js";

/**
 * Where the service may send requests on a tenant's behalf (webhook endpoints, customers' backup URLs, an
 * external JWKS or OAuth URL): the one destination policy of the service, applied when a URL is written (to
 * the host as written) and again at every connection, to the addresses the host resolves to right then;
 * the request then goes to exactly the address that was checked (see pinned-fetch.ts), so a name that
 * changes its answer between check and connect (DNS rebinding) cannot slip through.
 *
 * - Public destinations (a global unicast address) are allowed everywhere; live also needs https.
 * - Every IANA special-purpose range is refused (private, loopback, link-local, CGNAT, TEST-NET,
 *   benchmarking, documentation, NAT64, 6to4, Teredo, multicast, reserved, 0.0.0.0/8, ...). IPv6
 *   addresses that carry an IPv4 one (IPv4-mapped) are judged by the IPv4 address they reach.
 * - Sandbox environments may also use loopback (a developer's machine; SIGIL_WEBHOOK_SANDBOX_LOOPBACK),
 *   except the service's own ports.
 * - Hosts, addresses and CIDR ranges the operator lists (SIGIL_WEBHOOK_ALLOW_HOSTS) are allowed in both.
 */
export interface DestinationRules {
  environmentName: "live" | "sandbox";
  allowHosts: readonly string[];
  sandboxLoopback: boolean;
  protectedPorts: readonly number[];
}

export function destinationRules(settings: Pick<WebhookSettings, "allowHosts" | "sandboxLoopback" | "protectedPorts">, environmentName: "live" | "sandbox"): DestinationRules {
  return { environmentName, allowHosts: settings.allowHosts, sandboxLoopback: settings.sandboxLoopback, protectedPorts: settings.protectedPorts };
}

export type AddressClass = "public" | "loopback" | "special";

/** IANA's global unicast block: every IPv6 address outside it is reserved or special-purpose. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

/** Public, loopback or anything else (special-purpose) — for an IP address in any spelling ipaddr.js reads. */
export function classifyAddress(ip: string): AddressClass {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(stripBrackets(ip));
  } catch {
    return "special";
  }
  if (addr.kind() === "ipv6") {
    const v6 = addr as ipaddr.IPv6;
    // ::ffff:a.b.c.d is how a dual-stack socket reaches a.b.c.d: judge the IPv4 address.
    if (v6.isIPv4MappedAddress()) return classifyV4(v6.toIPv4Address());
    if (v6.range() === "loopback") return "loopback";
    // NAT64 (64:ff9b::/96), IPv4-compatible (::a.b.c.d), 6to4, Teredo... are all special-purpose or
    // outside 2000::/3, so whatever IPv4 address they embed, they are refused.
    return v6.range() === "unicast" && v6.match(GLOBAL_UNICAST_V6) ? "public" : "special";
  }
  return classifyV4(addr as ipaddr.IPv4);
}

function classifyV4(v4: ipaddr.IPv4): AddressClass {
  const range = v4.range();
  if (range === "unicast") return "public";
  return range === "loopback" ? "loopback" : "special";
}

const stripBrackets = (host: string) => host.replace(/^\[|\]$/g, "");
const normalizeHost = (host: string) => stripBrackets(host).toLowerCase().replace(/\.$/, "");

/** Is this host name (as written in the URL) or address on the operator's list? */
export function isAllowListed(hostOrAddress: string, rules: Pick<DestinationRules, "allowHosts">): boolean {
  const host = normalizeHost(hostOrAddress);
  const addr = ipaddr.isValid(host) ? ipaddr.process(host) : null;
  return rules.allowHosts.some((entry) => {
    if (!addr) return entry === host;
    try {
      if (entry.includes("/")) {
        const [net, bits] = ipaddr.parseCIDR(entry);
        return net.kind() === addr.kind() && addr.match(net, bits);
      }
      return ipaddr.isValid(entry) && ipaddr.process(entry).toNormalizedString() === addr.toNormalizedString();
    } catch {
      return false;
    }
  });
}

/**
 * Why a connection to this address and port is refused, or null when it is allowed. `host` is the URL's
 * host as written (an allow-listed name allows whatever it resolves to).
 */
export function refusalOfAddress(address: string, port: number, host: string, rules: DestinationRules): string | null {
  const kind = classifyAddress(address);
  // The service itself, whoever asks and whatever the allow-list says.
  if (kind === "loopback" && rules.protectedPorts.includes(port)) return `port ${port} on loopback belongs to this service`;
  if (isAllowListed(host, rules) || isAllowListed(address, rules)) return null;
  if (kind === "public") return null;
  if (kind === "loopback") {
    if (rules.environmentName === "sandbox" && rules.sandboxLoopback) return null;
    return rules.environmentName === "live" ? "loopback is for sandbox environments" : "loopback destinations are turned off on this server";
  }
  return `${address} is not a public address`;
}

/** Names that only mean something where the service runs (resolved through local files or search domains). */
function isLocalName(host: string): boolean {
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (host.endsWith(".local") || host.endsWith(".internal") || host.endsWith(".lan") || host.endsWith(".home.arpa")) return true;
  return !host.includes(".");
}

const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

function defaultPort(u: URL): number {
  return u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80;
}

/**
 * The URL of a webhook endpoint as written by a developer, checked against the policy; returns it
 * normalized, or throws a 400. Credentials in the URL are never accepted: they would be stored in clear
 * and shown in every read. Control characters are refused before parsing: the URL parser would silently
 * drop tabs and newlines, so the stored URL would not be the one written.
 */
export function checkWebhookUrl(raw: string, rules: DestinationRules): string {
  const invalid = (code: string, message: string) => badRequest(code, message, { field: "url" });
  if (CONTROL_CHARACTER.test(raw)) throw invalid("invalid_webhook_url", "url must not contain control characters");
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw invalid("invalid_webhook_url", "url must be an absolute http(s) URL");
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") throw invalid("invalid_webhook_url", "url must be an absolute http(s) URL");
  if (u.username || u.password) throw invalid("webhook_url_credentials_not_allowed", "url must not carry a user name or password");
  if (!u.hostname) throw invalid("invalid_webhook_url", "url must name a host");
  if (rules.environmentName === "live" && u.protocol !== "https:")
    throw invalid("webhook_url_https_required", "a live environment's webhooks must use https (http is for sandbox environments)");
  const refused = refusalOfHost(u, rules);
  if (refused) throw invalid("webhook_url_host_not_allowed", `url is not an allowed webhook destination: ${refused}`);
  return u.href;
}

/** The host as written: an address is judged as such; a name by its shape (its addresses at delivery). */
export function refusalOfHost(u: URL, rules: DestinationRules): string | null {
  const host = normalizeHost(u.hostname);
  if (ipaddr.isValid(host)) return refusalOfAddress(host, defaultPort(u), host, rules);
  if (isAllowListed(host, rules)) return null;
  if (host === "localhost" || host.endsWith(".localhost")) return refusalOfAddress("127.0.0.1", defaultPort(u), host, rules);
  return isLocalName(host) ? `${host} is a local name, not a public host` : null;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses. Replaceable by tests (there is no public DNS in tests). */
export const resolver = {
  lookup: async (hostname: string): Promise<ResolvedAddress[]> =>
    (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 })),
};

export type Destination = { ok: true; addresses: ResolvedAddress[] } | { ok: false; reason: string };

/**
 * The addresses a delivery may connect to, right now: the host resolved once, each address checked; those
 * refused are dropped (a name answering both a public and an inward address reaches only the public one).
 * Refused when none is left, when the host as written is refused, or when the name does not resolve.
 */
export async function resolveDestination(url: string, rules: DestinationRules): Promise<Destination> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { ok: false, reason: "the stored url does not parse" };
  }
  if (CONTROL_CHARACTER.test(url)) return { ok: false, reason: "the stored url has control characters" };
  // The stored URL was checked when written, but the rules may have changed since (configuration).
  const asWritten = refusalOfHost(u, rules);
  if (asWritten) return { ok: false, reason: asWritten };
  const host = normalizeHost(u.hostname);
  const port = defaultPort(u);
  let candidates: ResolvedAddress[];
  if (ipaddr.isValid(host)) candidates = [{ address: host, family: ipaddr.parse(host).kind() === "ipv6" ? 6 : 4 }];
  // RFC 6761: names under .invalid never resolve; no need to ask anyone.
  else if (host === "invalid" || host.endsWith(".invalid")) return { ok: false, reason: `${host} is under .invalid and never resolves` };
  else {
    try {
      candidates = await resolver.lookup(host);
    } catch (err) {
      return { ok: false, reason: `${host} does not resolve: ${(err as { code?: string }).code ?? String(err)}` };
    }
  }
  const refusals: string[] = [];
  const addresses = candidates.filter((a) => {
    const refused = refusalOfAddress(a.address, port, host, rules);
    if (refused) refusals.push(`${a.address}: ${refused}`);
    return !refused;
  });
  if (addresses.length === 0) return { ok: false, reason: `${host} has no allowed address (${refusals.join("; ") || "no address"})` };
  return { ok: true, addresses };
}

/**
 * For other fetches made on behalf of a live environment's settings (e.g. an external JWKS URL): why this
 * URL's host is refused under the live rules without any allow-list, or null.
 */
export async function privateResolution(url: string): Promise<string | null> {
  const destination = await resolveDestination(url, { environmentName: "live", allowHosts: [], sandboxLoopback: false, protectedPorts: [] });
  return destination.ok ? null : destination.reason;
}
