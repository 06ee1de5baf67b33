import { isHostname, isIpv4 } from "../custom-hostnames/hostname.js";

/**
 * Origins as browsers send them in the Origin header: scheme "://" host [":" port], nothing else. Stored
 * normalized (lowercase, default port of http/https dropped) so that comparison is plain equality. An
 * explicit "*." first label matches any subdomain (one or more labels) of the rest, never the rest itself.
 */
const ORIGIN = /^([a-z][a-z0-9+.-]*):\/\/([^/?#:@\s]+)(?::(\d{1,5}))?$/;
const DEFAULT_PORTS: Record<string, string> = { http: "80", https: "443" };

export type OriginParse = { ok: true; origin: string } | { ok: false; reason: string };

export function normalizeOrigin(input: string): OriginParse {
  const m = ORIGIN.exec(input.trim().toLowerCase());
  if (!m) return { ok: false, reason: "must be scheme://host[:port] with no path, query, fragment or credentials" };
  const [, scheme, rawHost, port] = m;
  let host = rawHost;
  let wildcard = false;
  if (host.startsWith("*.")) {
    wildcard = true;
    host = host.slice(2);
  }
  if (host.includes("*")) return { ok: false, reason: "a wildcard is only allowed as the whole first label (*.example.com)" };
  if (wildcard && (isIpv4(host) || !isHostname(host, { minLabels: 2 })))
    return { ok: false, reason: "a wildcard needs a domain of at least two labels after it" };
  if (!isIpv4(host) && !isHostname(host)) return { ok: false, reason: "the host is not a valid host name or IPv4 address" };
  if (port !== undefined) {
    const n = Number(port);
    if (n < 1 || n > 65535 || String(n) !== port) return { ok: false, reason: "the port must be 1 to 65535 without leading zeros" };
  }
  const keepPort = port !== undefined && DEFAULT_PORTS[scheme] !== port;
  return { ok: true, origin: `${scheme}://${wildcard ? "*." : ""}${host}${keepPort ? `:${port}` : ""}` };
}

/**
 * The stored patterns that would allow `origin` (already normalized, no wildcard): itself and, for each
 * parent domain of at least two labels, "*.parent".
 */
export function candidatePatterns(origin: string): string[] {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^:]+)(:\d+)?$/.exec(origin);
  if (!m) return [origin];
  const [, scheme, host, port = ""] = m;
  const out = [origin];
  if (isIpv4(host)) return out;
  const labels = host.split(".");
  for (let i = 1; i <= labels.length - 2; i++) out.push(`${scheme}://*.${labels.slice(i).join(".")}${port}`);
  return out;
}

/**
 * Whether `origin` (an Origin header value or a URL's origin, not yet normalized) is allowed by one of
 * `patterns` (the stored, normalized patterns of an environment): itself or a "*." pattern of a parent.
 */
export function originAllowedBy(patterns: ReadonlySet<string>, origin: string): boolean {
  const parsed = normalizeOrigin(origin);
  if (!parsed.ok || parsed.origin.includes("*")) return false;
  return candidatePatterns(parsed.origin).some((p) => patterns.has(p));
}
