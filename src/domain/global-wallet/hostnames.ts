import { badRequest } from "../../errors.js";

const LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const HOSTNAME = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*$`);

/**
 * A hostname as the access control stores and compares it: lowercase ASCII (IDNs in punycode, as URL
 * parsing gives them), without a trailing dot. Accepts a bare hostname or an http(s) origin (a URL whose
 * path is empty or "/"); anything else is null.
 */
export function hostnameOf(input: string): string | null {
  const s = input.trim();
  if (s === "") return null;
  let url: URL;
  try {
    url = new URL(s.includes("://") ? s : `http://${s}`);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== "/" && url.pathname !== "")) return null;
  // A bare hostname must not carry a port; an origin may (the port does not matter for the decision).
  if (!s.includes("://") && url.port) return null;
  if (!s.includes("://") && /[/?#@]/.test(s)) return null;
  const host = url.hostname.replace(/\.$/, "");
  return HOSTNAME.test(host) ? host : null;
}

/** An access-control entry: a hostname, or `*.` + hostname for every subdomain of it. 400 invalid_domain otherwise. */
export function normalizeDomainEntry(input: string): string {
  const s = input.trim();
  const wildcard = s.startsWith("*.");
  const host = hostnameOf(wildcard ? s.slice(2) : s);
  if (!host || (wildcard && s.includes("://")))
    throw badRequest("invalid_domain", "domain must be a hostname (example.com), a wildcard (*.example.com) or an origin (https://example.com)", {
      field: "domain",
    });
  return wildcard ? `*.${host}` : host;
}

/**
 * The entries that can match a hostname, most specific first: the hostname itself, then a wildcard over
 * each parent (a.b.example.com -> *.b.example.com, *.example.com, *.com).
 */
export function matchCandidates(host: string): string[] {
  const labels = host.split(".");
  const out = [host];
  for (let i = 1; i < labels.length; i++) out.push(`*.${labels.slice(i).join(".")}`);
  return out;
}
