import type { LookupAddress, LookupOptions } from "node:dns";
import { Agent, fetch, type Response } from "undici";
import type { ResolvedAddress } from "./destination-policy.js";

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A DNS lookup that answers only the addresses the destination policy checked: the socket connects to one
 * of them whatever the name resolves to by then. (A URL with an address as host skips lookups altogether;
 * that address was the one checked.)
 */
function pinnedLookup(addresses: readonly ResolvedAddress[]) {
  return (_hostname: string, options: LookupOptions, callback: LookupCallback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : undefined;
    const usable = addresses.filter((a) => !family || a.family === family);
    if (usable.length === 0) {
      const err: NodeJS.ErrnoException = new Error("no allowed address of this family");
      err.code = "ENOTFOUND";
      return callback(err, options.all ? [] : "");
    }
    if (options.all) return callback(null, usable.map((a) => ({ address: a.address, family: a.family })));
    callback(null, usable[0]!.address, usable[0]!.family);
  };
}

export interface PinnedResponse {
  status: number;
  headers: Response["headers"];
  /** The first `maxBytes` of the body as UTF-8 (null when it could not be read); the rest is dropped. */
  excerpt: string | null;
}

/**
 * POSTs to a URL through a connection to one of `addresses` only, on a dispatcher of its own (closed
 * afterwards: nothing is reused between destinations). Redirects are not followed.
 */
export async function postPinned(
  url: string,
  addresses: readonly ResolvedAddress[],
  init: { headers: Record<string, string>; body: string; signal: AbortSignal; maxBytes: number },
): Promise<PinnedResponse> {
  const dispatcher = new Agent({ connect: { lookup: pinnedLookup(addresses) }, connections: 1, pipelining: 0 });
  try {
    const res = await fetch(url, { method: "POST", headers: init.headers, body: init.body, redirect: "manual", signal: init.signal, dispatcher });
    const excerpt = await readExcerpt(res, init.maxBytes).catch(() => null);
    return { status: res.status, headers: res.headers, excerpt };
  } finally {
    await dispatcher.destroy().catch(() => {});
  }
}

async function readExcerpt(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  // Cut at a byte boundary, then drop a split trailing UTF-8 sequence.
  return Buffer.concat(chunks).subarray(0, maxBytes).toString("utf8").replace(/\uFFFD+$/, "");
}
