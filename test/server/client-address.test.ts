import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { trustedProxies } from "../../src/config-values.js";
import { createClientAddressOf } from "../../src/server/client-address.js";

const root = path.resolve(import.meta.dirname, "../..");
const req = (peer: string, xff?: string | string[]) => ({ socket: { remoteAddress: peer }, headers: xff === undefined ? {} : { "x-forwarded-for": xff } });

describe("SIGIL_TRUSTED_PROXIES", () => {
  it("reads CIDRs and plain addresses, IPv4 and IPv6, as normalised CIDRs; unset or empty trusts none", () => {
    expect(trustedProxies(undefined)).toEqual([]);
    expect(trustedProxies(" ")).toEqual([]);
    expect(trustedProxies("10.0.0.0/8, 192.168.1.5,fd00::/8, [2001:db8::1], ::ffff:172.16.0.1")).toEqual([
      "10.0.0.0/8",
      "192.168.1.5/32",
      "fd00::/8",
      "2001:db8::1/128",
      "172.16.0.1/32",
    ]);
  });

  it("refuses a malformed entry, naming the variable and the entry", () => {
    for (const bad of ["10.0.0.0/33", "not-an-ip", "10.1", "0x0a.0.0.1", "fd00::/129", "10.0.0.0/8;rm", "*"])
      expect(() => trustedProxies(`10.0.0.0/8,${bad}`), bad).toThrow(/SIGIL_TRUSTED_PROXIES.*got/);
  });

  it("stops the service at start with that message, before anything listens", () => {
    const r = spawnSync(process.execPath, ["--import", "tsx", "src/main.ts", "api"], {
      cwd: root,
      env: {
        ...process.env,
        // The production role's required settings, so that the start gets as far as reading the malformed one.
        DATABASE_URL: "postgres://127.0.0.1:1/none",
        REDIS_URL: "redis://127.0.0.1:1",
        TEMPORAL_ADDRESS: "127.0.0.1:1",
        SIGIL_SEALING_KEYS: `k1:${Buffer.alloc(32).toString("base64")}`,
        SIGIL_BACKUP_SEALING_KEYS: `b1:${Buffer.alloc(32).toString("base64")}`,
        SIGIL_TRUSTED_PROXIES: "10.0.0.0/8,load-balancer",
      },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('sigil: invalid configuration: SIGIL_TRUSTED_PROXIES entries must be IP addresses or CIDR ranges (e.g. 10.0.0.0/8, fd00::/8), got "load-balancer"');
  }, 60_000);
});

describe("the client address of a request", () => {
  it("is the socket peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    const of = createClientAddressOf([]);
    expect(of(req("127.0.0.1", "203.0.113.9"))).toBe("127.0.0.1");
    expect(of(req("::ffff:10.0.0.2", "203.0.113.9"))).toBe("::ffff:10.0.0.2");
  });

  it("is the socket peer when the peer is not a trusted proxy", () => {
    const of = createClientAddressOf(trustedProxies("10.0.0.0/8"));
    expect(of(req("192.0.2.7", "203.0.113.9"))).toBe("192.0.2.7");
  });

  it("behind a trusted proxy, is the right-most forwarded entry that is not a trusted proxy", () => {
    const of = createClientAddressOf(trustedProxies("10.0.0.0/8,fd00::/8"));
    expect(of(req("10.0.0.2", "203.0.113.9"))).toBe("203.0.113.9");
    // Two proxies of ours in a row (CDN edge, then the load balancer): both skipped.
    expect(of(req("10.0.0.2", "203.0.113.9, 10.1.2.3"))).toBe("203.0.113.9");
    // A client that prepends an address gains nothing: the proxy appended what it saw.
    expect(of(req("10.0.0.2", "198.51.100.1, 203.0.113.9"))).toBe("203.0.113.9");
    // Several headers are one list, in order.
    expect(of(req("10.0.0.2", ["198.51.100.1", "203.0.113.9"]))).toBe("203.0.113.9");
    // IPv6, IPv4-mapped, bracketed and with ports, as proxies write them.
    expect(of(req("::ffff:10.0.0.2", "2001:db8::5"))).toBe("2001:db8::5");
    expect(of(req("fd00::1", "[2001:db8::5]:4711"))).toBe("2001:db8::5");
    expect(of(req("10.0.0.2", "203.0.113.9:4711"))).toBe("203.0.113.9");
    expect(of(req("10.0.0.2", "::ffff:203.0.113.9"))).toBe("203.0.113.9");
  });

  it("behind a trusted proxy, falls back to the nearest proxy when the chain holds nothing else usable", () => {
    const of = createClientAddressOf(trustedProxies("10.0.0.0/8"));
    // No header: the proxy's own request (a health check).
    expect(of(req("10.0.0.2"))).toBe("10.0.0.2");
    // Only proxies of ours: the left-most of them is where the request started.
    expect(of(req("10.0.0.2", "10.9.9.9, 10.0.0.3"))).toBe("10.9.9.9");
    // Garbage where the client's address should be: not an address, so the proxies' view is all there is.
    expect(of(req("10.0.0.2", "203.0.113.9, unknown"))).toBe("10.0.0.2");
    expect(of(req("10.0.0.2", "127.1"))).toBe("10.0.0.2");
    expect(of(req("10.0.0.2", ""))).toBe("10.0.0.2");
  });
});
