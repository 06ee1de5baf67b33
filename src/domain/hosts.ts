import { isIP } from "node:net";

/**
 * Loopback hosts (localhost, *.localhost, 127.0.0.0/8, ::1): the only hosts a plain-http URL may name where
 * the service otherwise insists on https (a node or an app on the developer's own machine). Accepts a URL's
 * `hostname`, brackets of IPv6 literals included.
 */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) return h === "::1";
  return false;
}
