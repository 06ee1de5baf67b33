import type { LookupAddress, LookupOptions } from "node:dns";
import { isIP } from "node:net";
import { Agent, request } from "undici";
import { resolveDestination, type Destination, type DestinationRules, type ResolvedAddress } from "./destination-policy.js";

/** The code of a request the destination policy refused at connect time: nothing was sent. */
export const DESTINATION_REFUSED = "EDESTINATION_REFUSED";

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function refused(reason: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`destination refused: ${reason}`);
  err.code = DESTINATION_REFUSED;
  return err;
}

/** Answers a lookup with checked addresses only (of the family asked for, when one is). */
function answer(addresses: readonly ResolvedAddress[], options: LookupOptions, callback: LookupCallback) {
  const family = options.family === 4 || options.family === 6 ? options.family : undefined;
  const usable = addresses.filter((a) => !family || a.family === family);
  if (usable.length === 0) {
    const err: NodeJS.ErrnoException = new Error("no allowed address of this family");
    err.code = "ENOTFOUND";
    return callback(err, options.all ? [] : "");
  }
  if (options.all) return callback(null, usable.map((a) => ({ address: a.address, family: a.family })));
  callback(null, usable[0]!.address, usable[0]!.family);
}

/**
 * The lookup of every new connection: resolves the URL's host and checks each address against the destination
 * policy right then (resolveDestination), and answers only the allowed ones, so the socket connects to one of
 * exactly the addresses just checked, whatever the name answers next (DNS rebinding cannot slip through). A
 * kept-alive connection stays on the address it was checked for; the next new one is checked again.
 */
function checkedLookup(url: string, rules: DestinationRules) {
  return (_hostname: string, options: LookupOptions, callback: LookupCallback) => {
    resolveDestination(url, rules).then(
      (d) => (d.ok ? answer(d.addresses, options, callback) : callback(refused(d.reason), options.all ? [] : "")),
      (err: NodeJS.ErrnoException) => callback(err, options.all ? [] : ""),
    );
  };
}

/** The policy's verdict on a URL whose host is an address (net.connect does no lookup for those), else null. */
function literalCheck(url: string, rules: DestinationRules): Promise<Destination> | null {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  } catch {
    return resolveDestination(url, rules);
  }
  return isIP(host) ? resolveDestination(url, rules) : null;
}

export interface PinnedResponse {
  status: number;
  /** The Retry-After header, if any. */
  retryAfter: string | null;
  /** The first `maxBytes` of the body as UTF-8 (null when it could not be read); the rest is dropped. */
  excerpt: string | null;
}

/** Requests to one endpoint URL over connections that only ever reach addresses the policy allowed. */
export interface PinnedClient {
  /** POSTs to the URL; throws (code DESTINATION_REFUSED) when the policy refuses it, nothing sent. */
  post(init: { headers: Record<string, string>; body: string; signal: AbortSignal; maxBytes: number }): Promise<PinnedResponse>;
  /** GETs the URL under the same rules (a backup fetched back from a customer's URL). */
  get(init: { headers: Record<string, string>; signal: AbortSignal; maxBytes: number }): Promise<PinnedResponse>;
  /** Closes the connections once the requests in flight are done. */
  close(): Promise<void>;
}

/**
 * A client for one endpoint URL (an actor's batch keeps one for the batch, a single attempt makes its own):
 * up to `connections` kept-alive connections, each to an address checked when it was made (checkedLookup);
 * an address as host is checked once, here. Nothing is shared with other endpoints. Redirects are not followed
 * (request() never follows them).
 */
export function pinnedClient(url: string, rules: DestinationRules, connections = 1): PinnedClient {
  const literal = literalCheck(url, rules);
  const dispatcher = new Agent({ connect: { lookup: checkedLookup(url, rules) }, connections, pipelining: 1 });
  const send = async (method: "POST" | "GET", init: { headers: Record<string, string>; body?: string; signal: AbortSignal; maxBytes: number }) => {
    if (literal) {
      const d = await literal;
      if (!d.ok) throw refused(d.reason);
    }
    // undici's request(), not fetch(): the same dispatcher and connections without the WHATWG Request,
    // Response and stream objects, which were a fifth of the worker's CPU per attempt (docs/benchmarks.md).
    const res = await request(url, { method, headers: init.headers, body: init.body, signal: init.signal, dispatcher });
    const excerpt = await readExcerpt(res.body, init.maxBytes).catch(() => null);
    const retryAfter = res.headers["retry-after"];
    return { status: res.statusCode, retryAfter: (Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) ?? null, excerpt };
  };
  return {
    post: (init) => send("POST", init),
    get: (init) => send("GET", init),
    close: () => dispatcher.close().catch(() => {}),
  };
}

/** Reads up to `maxBytes` of a body and drops the rest (the connection is then closed, not reused). */
async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): void }, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= maxBytes) break;
    }
  } finally {
    if (size >= maxBytes) body.destroy();
  }
  // Cut at a byte boundary, then drop a split trailing UTF-8 sequence.
  return Buffer.concat(chunks).subarray(0, maxBytes).toString("utf8").replace(/\uFFFD+$/, "");
}
