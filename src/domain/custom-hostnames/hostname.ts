/**
 * RFC 1123 host names: 1-63 character labels of letters, digits and inner hyphens, at most 253 characters,
 * compared in lowercase. Used for custom hostnames, origins and SSO e-mail domains.
 */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export function isIpv4(host: string): boolean {
  return IPV4.test(host);
}

/** A valid host name in lowercase. `minLabels` 2 asks for a registrable-looking name (not "localhost"). */
export function isHostname(host: string, opts: { minLabels?: number } = {}): boolean {
  if (host.length === 0 || host.length > 253 || host !== host.toLowerCase()) return false;
  const labels = host.split(".");
  if (labels.length < (opts.minLabels ?? 1)) return false;
  if (!labels.every((l) => LABEL.test(l))) return false;
  // A top-level label of digits only would make it an IP-like name, not a DNS name.
  return labels.length === 1 || !/^\d+$/.test(labels[labels.length - 1]);
}

/** Lowercases and drops one trailing dot (the fully-qualified spelling); returns null when invalid. */
export function normalizeHostname(input: string, opts: { minLabels?: number } = {}): string | null {
  const h = input.trim().toLowerCase().replace(/\.$/, "");
  return isHostname(h, opts) ? h : null;
}
