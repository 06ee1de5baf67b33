import ipaddr from "ipaddr.js";

/** What the client address is read from: the socket, and the forwarding header a proxy appends to. */
export interface AddressedRequest {
  socket?: { remoteAddress?: string } | null;
  headers: Record<string, string | string[] | undefined>;
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * The address a request comes from, for rate limits, sessions, audit rows and visits alike. Without
 * trusted proxies (SIGIL_TRUSTED_PROXIES unset) it is the socket peer, and a forwarding header is never
 * read: any client can write one. When the peer is a trusted proxy, X-Forwarded-For is walked from the
 * right (each proxy appends the address it saw): proxies of ours are skipped and the first other entry is
 * the client. Entries left of it were written by the client itself, so prepending a made-up address
 * changes nothing. gRPC metadata arrives as the same HTTP/2 header.
 */
export function createClientAddressOf(trustedProxies: readonly string[]): (req: AddressedRequest) => string {
  const ranges: Range[] = trustedProxies.map((cidr) => ipaddr.parseCIDR(cidr));
  const trusted = (addr: ipaddr.IPv4 | ipaddr.IPv6) => ranges.some(([net, bits]) => addr.kind() === net.kind() && addr.match([net, bits] as never));
  return (req) => {
    const peer = req.socket?.remoteAddress ?? "";
    if (ranges.length === 0) return peer;
    const peerAddr = parseAddress(peer);
    if (!peerAddr || !trusted(peerAddr)) return peer;
    let nearest = peerAddr;
    for (const entry of forwardedFor(req.headers["x-forwarded-for"]).reverse()) {
      const addr = parseAddress(entry);
      // A hop that is not an address cannot be the client's; the nearest proxy's view is all we know.
      if (!addr) break;
      if (!trusted(addr)) return addr.toString();
      nearest = addr;
    }
    return nearest.toString();
  };
}

function forwardedFor(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  return (Array.isArray(header) ? header.join(",") : header).split(",").map((e) => e.trim()).filter(Boolean);
}

/** An address as proxies write it (1.2.3.4, 1.2.3.4:5678, 2001:db8::1, [2001:db8::1]:443), IPv4-mapped IPv6 as IPv4. */
function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(text);
  const plain = bracketed?.[1] ?? v4WithPort?.[1] ?? text;
  if (!ipaddr.isValid(plain)) return null;
  // ipaddr.isValid also takes forms such as "0x7f.1" or "127.1"; a proxy writes dotted quads only.
  if (plain.includes(".") && !plain.includes(":") && !ipaddr.IPv4.isValidFourPartDecimal(plain)) return null;
  return ipaddr.process(plain);
}
