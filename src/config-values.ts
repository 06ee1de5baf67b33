import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import ipaddr from "ipaddr.js";

/**
 * How one environment variable is read and checked (src/config.ts says which settings exist): numbers,
 * booleans, URLs, duration lists, host lists, sealing keys. Each throws naming the variable and the value.
 */

/** "0,5s,5m,2h" -> ms; plain numbers are ms. */
export function durations(name: string, raw: string | undefined, fallback: number[]): number[] {
  if (raw === undefined || raw === "") return fallback;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  return raw.split(",").map((part) => {
    const m = /^\s*(\d+(?:\.\d+)?)(ms|s|m|h|d)?\s*$/.exec(part);
    if (!m) throw new Error(`${name} must be a comma-separated list of durations like 0,5s,5m,2h, got ${JSON.stringify(raw)}`);
    return Math.round(Number(m[1]) * unit[m[2] ?? "ms"]!);
  });
}

/** "hooks.corp.example,10.20.0.0/16,192.168.1.5": each entry a host name, an IP address or a CIDR range. */
export function allowHosts(raw: string | undefined): string[] {
  const entries = (raw ?? "").split(",").map((e) => e.trim().toLowerCase().replace(/\.$/, "").replace(/^\[(.*)\]$/, "$1")).filter(Boolean);
  for (const e of entries) {
    const ok = e.includes("/") ? isCidr(e) : ipaddr.isValid(e) || /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(e);
    if (!ok) throw new Error(`SIGIL_WEBHOOK_ALLOW_HOSTS entries must be host names, IP addresses or CIDR ranges, got ${JSON.stringify(e)}`);
  }
  return entries;
}

/**
 * SIGIL_TRUSTED_PROXIES: "10.0.0.0/8,fd00::/8,192.168.1.5", the load balancers whose X-Forwarded-For is
 * believed (src/server/client-address.ts). Each entry a CIDR range or a plain address (a /32 or /128),
 * IPv4 or IPv6; returned as normalised CIDRs. Unset or empty: no proxy is trusted.
 */
export function trustedProxies(raw: string | undefined): string[] {
  const entries = (raw ?? "").split(",").map((e) => e.trim()).filter(Boolean);
  return entries.map((e) => {
    const plain = e.replace(/^\[(.*)\]$/, "$1");
    // ipaddr also reads forms such as "10.1" or "0x0a.0.0.1"; an operator's list is dotted quads.
    const oddIpv4 = !plain.includes(":") && !ipaddr.IPv4.isValidFourPartDecimal(plain.split("/")[0]!);
    try {
      if (oddIpv4) throw new Error("not a dotted quad");
      if (plain.includes("/")) {
        const [addr, bits] = ipaddr.parseCIDR(plain);
        return `${addr.toString()}/${bits}`;
      }
      if (ipaddr.isValid(plain)) {
        // ::ffff:a.b.c.d is how a dual-stack socket shows a.b.c.d: kept as the IPv4 address it is.
        const addr = ipaddr.process(plain);
        return `${addr.toString()}/${addr.kind() === "ipv4" ? 32 : 128}`;
      }
    } catch {
      // reported below
    }
    throw new Error(`SIGIL_TRUSTED_PROXIES entries must be IP addresses or CIDR ranges (e.g. 10.0.0.0/8, fd00::/8), got ${JSON.stringify(e)}`);
  });
}

function isCidr(entry: string): boolean {
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

/** An http(s) base URL without its trailing slash, or undefined when unset. */
export function httpUrl(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (!URL.canParse(raw) || !["http:", "https:"].includes(new URL(raw).protocol)) throw new Error(`${name} must be an http or https URL, got ${JSON.stringify(raw)}`);
  return raw.replace(/\/$/, "");
}

/** A JSON object of positive integer ids to http(s) URLs ({"1":"https://..."}); {} when unset. */
export function rpcUrlsById(name: string, env: NodeJS.ProcessEnv): Record<number, string> {
  const raw = env[name]?.trim();
  if (!raw) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error(`${name} must be a JSON object of chain ids to URLs, e.g. {"1":"https://node.example"}`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error(`${name} must be a JSON object of chain ids to URLs`);
  const out: Record<number, string> = {};
  for (const [key, url] of Object.entries(parsed)) {
    const id = Number(key);
    if (!Number.isSafeInteger(id) || id <= 0) throw new Error(`${name}: ${JSON.stringify(key)} is not a positive integer chain id`);
    if (typeof url !== "string" || !URL.canParse(url) || !["http:", "https:"].includes(new URL(url).protocol))
      throw new Error(`${name}: the URL of ${key} must be an http or https URL`);
    out[id] = url;
  }
  return out;
}

export function bool(name: string, fallback: boolean, env: NodeJS.ProcessEnv): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (["1", "true", "yes", "on"].includes(raw)) return true;
  if (["0", "false", "no", "off"].includes(raw)) return false;
  throw new Error(`${name} must be true or false, got ${JSON.stringify(env[name])}`);
}

export function loopbackPort(url: string, fallback: number): number | null {
  try {
    const u = new URL(url);
    const host = u.hostname.replace(/^\[|\]$/g, "");
    const loopback = host === "localhost" || (ipaddr.isValid(host) && ipaddr.process(host).range() === "loopback");
    return loopback ? Number(u.port || fallback) : null;
  } catch {
    return null;
  }
}

export function int(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return n;
}

/**
 * SIGIL_SEALING_KEYS is "id:base64key,id2:base64key" (32-byte keys). Without it, a key is generated once and
 * kept in <dataDir>/sealing.key so an embedded install survives restarts; production must set it. The backup
 * sealing keys (SIGIL_BACKUP_SEALING_KEYS, <dataDir>/backup-sealing.key) are read the same way.
 */
export function sealingKeys(env: NodeJS.ProcessEnv, dataDir: string, name = "SIGIL_SEALING_KEYS", fileName = "sealing.key"): { id: string; key: Buffer }[] {
  const raw = env[name];
  if (raw) {
    return raw.split(",").map((entry) => {
      const [id, b64] = entry.split(":");
      const key = Buffer.from(b64 ?? "", "base64");
      if (!id || key.length !== 32) throw new Error(`${name} entries must be id:<base64 of 32 bytes>`);
      return { id, key };
    });
  }
  const file = path.join(dataDir, fileName);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `k1:${randomBytes(32).toString("base64")}\n`, { mode: 0o600 });
  }
  return sealingKeys({ [name]: readFileSync(file, "utf8").trim() }, dataDir, name, fileName);
}
