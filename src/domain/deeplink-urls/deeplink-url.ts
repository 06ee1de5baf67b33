import { isHostname, isIpv4 } from "../custom-hostnames/hostname.js";
import { isLoopbackHost } from "../hosts.js";

/**
 * Deeplink URLs: https URLs (universal / app links) or a custom scheme of the app's own (myapp://callback).
 * Schemes a browser would execute or that name local content are refused, as is plain http (sign-in
 * results would travel in clear) except on loopback hosts for development. No fragments: the SDK appends
 * its own parameters.
 */
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(\S+)$/;
const FORBIDDEN_SCHEMES = new Set(["javascript", "data", "file", "vbscript", "blob", "about", "filesystem", "ftp", "ws", "wss"]);

export type DeeplinkParse = { ok: true; url: string } | { ok: false; reason: string };

export function normalizeDeeplinkUrl(input: string): DeeplinkParse {
  const trimmed = input.trim();
  const m = SCHEME.exec(trimmed);
  if (!m) return { ok: false, reason: "must be scheme://... (https or the app's own scheme)" };
  const scheme = m[1].toLowerCase();
  if (FORBIDDEN_SCHEMES.has(scheme)) return { ok: false, reason: `the scheme ${scheme} is not allowed` };
  if (trimmed.includes("#")) return { ok: false, reason: "must not contain a fragment" };
  if (/[\u0000-\u001f\u007f<>"`\\]/.test(trimmed)) return { ok: false, reason: "contains characters not allowed in a URL" };
  if (scheme === "http" || scheme === "https") {
    let u: URL;
    try {
      u = new URL(trimmed);
    } catch {
      return { ok: false, reason: "is not a valid URL" };
    }
    if (u.username || u.password) return { ok: false, reason: "must not contain credentials" };
    const host = u.hostname;
    if (scheme === "http" && !isLoopbackHost(host)) return { ok: false, reason: "http is only allowed for loopback hosts; use https" };
    if (scheme === "https" && !isIpv4(host) && !isHostname(host, { minLabels: 2 })) return { ok: false, reason: "the host is not valid" };
    // The WHATWG serialization: lowercase scheme and host, percent-encoding normalized.
    return { ok: true, url: u.href };
  }
  // Custom schemes: keep the rest as written (apps match it literally), lowercase the scheme.
  return { ok: true, url: `${scheme}://${m[2]}` };
}
