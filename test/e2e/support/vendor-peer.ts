import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The vendor side of the signing scheme Sigil's price source and ramp provider protocols use (written here
 * from the protocol's text in proto/sigil/ramps/v0/sdk_ramps_service.proto, not from Sigil's code): a
 * loopback vendor that refuses a request whose signature, key id or timestamp is wrong, as a real one would.
 */
export const PEER_KEY_ID = "sigil-test-key";
export const PEER_SECRET = "peer-shared-secret-0123456789";
/** A vendor refuses timestamps further than this from its clock (replays). */
const MAX_SKEW_SECONDS = 300;

const strict = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
export function canonical(params: URLSearchParams): string {
  const pairs = [...params].map(([k, v]) => `${strict(k)}=${strict(v)}`);
  // Sorted by name then value: sorting "name=value" strings sorts by name first since '=' sorts below the
  // encoded characters that can follow a name.
  return pairs.sort((a, b) => {
    const [ak, av] = a.split("=") as [string, string];
    const [bk, bv] = b.split("=") as [string, string];
    return ak === bk ? (av < bv ? -1 : av > bv ? 1 : 0) : ak < bk ? -1 : 1;
  }).join("&");
}
/** The key a peer checks signatures with: the shared test key unless a test gives another (a second vendor). */
export interface PeerKey {
  keyId: string;
  secret: string;
}
const DEFAULT_KEY: PeerKey = { keyId: PEER_KEY_ID, secret: PEER_SECRET };
const mac = (text: string, secret = PEER_SECRET) => createHmac("sha256", secret).update(text).digest("hex");
const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
const fresh = (ts: string | null | undefined, now: number) => !!ts && /^\d+$/.test(ts) && Math.abs(now - Number(ts)) <= MAX_SKEW_SECONDS;

/** Why a signed request is refused, or null when it is Sigil's. */
export function refusalOfRequest(method: string, url: URL, headers: IncomingMessage["headers"], body: string, now = Math.floor(Date.now() / 1000), key = DEFAULT_KEY): string | null {
  const ts = headers["x-sigil-timestamp"] as string | undefined;
  if (headers["x-sigil-key-id"] !== key.keyId) return "unknown key id";
  if (!fresh(ts, now)) return "stale or missing timestamp";
  const text = ["v1", ts, method, url.pathname, canonical(url.searchParams), createHash("sha256").update(body).digest("hex")].join("\n");
  const sent = String(headers["x-sigil-signature"] ?? "");
  return same(sent, `v1=${mac(text, key.secret)}`) ? null : "bad signature";
}

/** Why a signed URL (a buy or sell page) is refused, or null when Sigil signed it. */
export function refusalOfUrl(url: URL, now = Math.floor(Date.now() / 1000), key = DEFAULT_KEY): string | null {
  const params = new URLSearchParams(url.searchParams);
  const signature = params.get("signature") ?? "";
  params.delete("signature");
  if (params.get("keyId") !== key.keyId) return "unknown key id";
  if (!fresh(params.get("timestamp"), now)) return "stale or missing timestamp";
  return same(signature, mac(canonical(params), key.secret)) ? null : "bad signature";
}

/** What a peer saw: every request, refused or not. */
export interface SeenRequest {
  method: string;
  url: URL;
  headers: IncomingMessage["headers"];
  body: string;
  refusal: string | null;
}

export type PeerMode = "ok" | "down" | "silent";

export interface VendorPeer {
  url: string;
  seen: SeenRequest[];
  /** ok: answer; down: 503 with Retry-After 7; silent: never answer (a timeout). */
  mode: PeerMode;
  close(): Promise<void>;
}

/** A loopback vendor: checks each request's signature (401 when refused), then lets `answer` reply. */
export async function startVendorPeer(answer: (req: SeenRequest, res: ServerResponse) => void, key = DEFAULT_KEY): Promise<VendorPeer> {
  const peer = { url: "", seen: [] as SeenRequest[], mode: "ok" as PeerMode, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://peer");
      const body = Buffer.concat(chunks).toString("utf8");
      const unsigned = url.pathname.startsWith("/buy") || url.pathname.startsWith("/sell");
      const seen: SeenRequest = { method: req.method ?? "", url, headers: req.headers, body, refusal: unsigned ? refusalOfUrl(url, undefined, key) : refusalOfRequest(req.method ?? "", url, req.headers, body, undefined, key) };
      peer.seen.push(seen);
      if (peer.mode === "silent") return;
      if (peer.mode === "down") return void res.writeHead(503, { "retry-after": "7" }).end("maintenance");
      if (seen.refusal) return void res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: seen.refusal }));
      answer(seen, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  peer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  peer.close = () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return peer;
}

export const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
