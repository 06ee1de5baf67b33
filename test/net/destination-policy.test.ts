import { afterEach, describe, expect, it } from "vitest";
import { DomainError } from "../../src/errors.js";
import {
  checkWebhookUrl,
  classifyAddress,
  privateResolution,
  resolveDestination,
  resolver,
  type DestinationRules,
} from "../../src/net/destination-policy.js";

const live: DestinationRules = { environmentName: "live", allowHosts: [], sandboxLoopback: true, protectedPorts: [] };
const sandbox: DestinationRules = { ...live, environmentName: "sandbox" };

/** Every special-purpose spelling the attack probe tried, plus the rest of IANA's registries. */
const SPECIAL = [
  "0.0.0.0", "0.1.2.3", "10.0.0.1", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "192.0.0.1",
  "192.0.2.1", "198.18.0.1", "198.19.255.255", "198.51.100.1", "203.0.113.1", "192.88.99.1", "224.0.0.1",
  "240.0.0.1", "255.255.255.255", "::", "fe80::1", "fc00::1", "fd12::1", "ff02::1", "2001:db8::1", "64:ff9b::7f00:1",
  "64:ff9b::a9fe:a9fe", "64:ff9b:1::1", "::7f00:1", "::a00:1", "::ffff:10.0.0.1", "::ffff:a9fe:a9fe", "::ffff:0.0.0.0",
  "2002:7f00:1::1", "2001::1", "2001:2::1", "100::1", "3fff::1", "5f00::1",
];

describe("classifyAddress", () => {
  it("calls every special-purpose address special", () => {
    for (const ip of SPECIAL) expect(classifyAddress(ip), ip).toBe("special");
  });
  it("knows loopback in its spellings, IPv4-mapped included", () => {
    for (const ip of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1", "::ffff:7f00:1"]) expect(classifyAddress(ip), ip).toBe("loopback");
  });
  it("calls global unicast public", () => {
    for (const ip of ["93.184.216.34", "1.1.1.1", "2606:4700::1111", "::ffff:93.184.216.34"]) expect(classifyAddress(ip), ip).toBe("public");
  });
  it("calls garbage special", () => {
    expect(classifyAddress("not-an-ip")).toBe("special");
  });
});

function refusal(url: string, rules: DestinationRules): string | null {
  try {
    checkWebhookUrl(url, rules);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return (err as DomainError).code;
  }
}

describe("checkWebhookUrl (as written, at creation and update)", () => {
  const inward = [
    "169.254.169.254", "10.0.0.1", "192.168.0.1", "0.0.0.0", "[::]", "[fe80::1]", "[::ffff:169.254.169.254]", "[::ffff:10.0.0.1]",
    "192.0.2.1", "198.18.0.1", "[2001:db8::1]", "[64:ff9b::7f00:1]", "[::127.0.0.1]", "167772161" /* 10.0.0.1 */, "0xa9.0xfe.0xa9.0xfe",
    "10.1" /* 10.0.0.1 */, "0x0a000001",
  ];
  it("refuses every special-purpose host, in any spelling, in live and sandbox", () => {
    for (const host of inward) {
      expect(refusal(`https://${host}/x`, live), host).toBe("webhook_url_host_not_allowed");
      expect(refusal(`http://${host}/x`, sandbox), host).toBe("webhook_url_host_not_allowed");
    }
  });
  it("refuses loopback in live in every spelling, and local names", () => {
    for (const host of ["127.0.0.1", "2130706433", "0x7f.1", "127.1", "[::1]", "[::ffff:127.0.0.1]", "localhost", "api.localhost", "db.internal", "printer.local", "intranet"])
      expect(refusal(`https://${host}/x`, live), host).toBe("webhook_url_host_not_allowed");
  });
  it("lets sandbox use loopback, unless turned off or at the service's own ports", () => {
    for (const host of ["127.0.0.1:4000", "2130706433:4000", "0x7f.1:4000", "127.1:4000", "[::1]:4000", "localhost:4000"])
      expect(refusal(`http://${host}/x`, sandbox), host).toBeNull();
    expect(refusal("http://127.0.0.1:4000/x", { ...sandbox, sandboxLoopback: false })).toBe("webhook_url_host_not_allowed");
    expect(refusal("http://localhost:4000/x", { ...sandbox, sandboxLoopback: false })).toBe("webhook_url_host_not_allowed");
    for (const url of ["http://127.0.0.1:5432/", "http://localhost:5432/", "http://[::1]:5432/", "http://127.0.0.1:8080/", "http://127.0.0.1/"])
      expect(refusal(url, { ...sandbox, protectedPorts: [5432, 8080, 80] }), url).toBe("webhook_url_host_not_allowed");
  });
  it("allows public hosts everywhere (http only in sandbox)", () => {
    expect(refusal("https://hooks.example.com/x", live)).toBeNull();
    expect(refusal("https://93.184.216.34/x", live)).toBeNull();
    expect(refusal("http://hooks.example.com/x", live)).toBe("webhook_url_https_required");
    expect(refusal("http://hooks.example.com/x", sandbox)).toBeNull();
  });
  it("allows what the operator lists: names, addresses and CIDR ranges", () => {
    const rules = { ...live, allowHosts: ["relay.internal", "10.20.0.0/16", "192.0.2.7", "fd00::/8"] };
    for (const url of ["https://relay.internal/x", "https://RELAY.internal./x", "https://10.20.3.4/x", "https://192.0.2.7/x", "https://[fd00::5]/x"])
      expect(refusal(url, rules), url).toBeNull();
    for (const url of ["https://other.internal/x", "https://10.21.0.1/x", "https://192.0.2.8/x", "https://[fe80::1]/x"])
      expect(refusal(url, rules), url).toBe("webhook_url_host_not_allowed");
  });
  it("refuses control characters, including those the URL parser would drop", () => {
    for (const url of ["http://127.0.0.1/a\u0000b", "http://127.0.0.1/a\tb", "http://127.0.0.1/a\nb", "http://127.0.0.1/\r", "\u0001http://127.0.0.1/", "http://127.0.0.1/\u007f", "http://exa\tmple.com/"])
      expect(refusal(url, sandbox), JSON.stringify(url)).toBe("invalid_webhook_url");
  });
});

describe("resolveDestination (at connect time, on the addresses of now)", () => {
  const real = resolver.lookup;
  afterEach(() => {
    resolver.lookup = real;
  });
  const answer = (...addresses: string[]) => {
    resolver.lookup = async () => addresses.map((address) => ({ address, family: address.includes(":") ? (6 as const) : (4 as const) }));
  };

  it("refuses a public-looking name that resolves inwards, in live and sandbox", async () => {
    for (const inwards of ["10.0.0.1", "169.254.169.254", "::ffff:10.0.0.1", "64:ff9b::7f00:1", "0.0.0.0", "192.0.2.1"]) {
      answer(inwards);
      expect(await resolveDestination("https://hooks.example.com/x", live), inwards).toMatchObject({ ok: false });
      expect(await resolveDestination("http://hooks.example.com/x", sandbox), inwards).toMatchObject({ ok: false });
    }
    answer("127.0.0.1");
    expect(await resolveDestination("https://hooks.example.com/x", live)).toMatchObject({ ok: false });
    expect(await privateResolution("https://hooks.example.com/x")).toMatch(/no allowed address/);
  });
  it("keeps only the allowed addresses of a name (the request can reach no other)", async () => {
    answer("10.0.0.1", "93.184.216.34", "::1");
    expect(await resolveDestination("https://hooks.example.com/x", live)).toEqual({ ok: true, addresses: [{ address: "93.184.216.34", family: 4 }] });
  });
  it("refuses what does not resolve", async () => {
    resolver.lookup = async () => {
      throw Object.assign(new Error("nope"), { code: "ENOTFOUND" });
    };
    expect(await resolveDestination("https://hooks.example.com/x", live)).toMatchObject({ ok: false, reason: expect.stringMatching(/does not resolve/) });
  });
  it("judges literal addresses without any lookup, again at delivery (rules may have changed)", async () => {
    resolver.lookup = async () => {
      throw new Error("no lookup expected");
    };
    expect(await resolveDestination("http://127.0.0.1:4000/x", sandbox)).toEqual({ ok: true, addresses: [{ address: "127.0.0.1", family: 4 }] });
    expect(await resolveDestination("http://127.0.0.1:4000/x", { ...sandbox, sandboxLoopback: false })).toMatchObject({ ok: false });
    expect(await resolveDestination("http://127.0.0.1:4000/x", { ...sandbox, protectedPorts: [4000] })).toMatchObject({ ok: false });
    expect(await resolveDestination("https://93.184.216.34/x", live)).toMatchObject({ ok: true });
    expect(await resolveDestination("https://[::ffff:7f00:1]/x", live)).toMatchObject({ ok: false });
  });
  it("lets an allow-listed name resolve anywhere except the service's own ports", async () => {
    answer("10.20.0.5");
    const rules = { ...live, allowHosts: ["relay.corp"], protectedPorts: [8080] };
    expect(await resolveDestination("https://relay.corp/x", rules)).toMatchObject({ ok: true });
    answer("127.0.0.1");
    expect(await resolveDestination("https://relay.corp:8080/x", rules)).toMatchObject({ ok: false });
  });
});
