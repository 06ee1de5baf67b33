import { json, startVendorPeer, type PeerKey, type VendorPeer } from "./vendor-peer.js";

/** A loopback price source speaking Sigil's price protocol; tests set its rates and prices. */
export interface PricePeer extends VendorPeer {
  /** Fiat rates from USD, as decimal strings. */
  rates: Record<string, string>;
  /** USD prices by id (a symbol or <FAMILY>:<networkId>:<address>). */
  prices: Record<string, string>;
}

export async function startPricePeer(key?: PeerKey): Promise<PricePeer> {
  // Tests replace rates and prices: the handler reads them from the peer object it returns.
  let state = { rates: {} as Record<string, string>, prices: {} as Record<string, string> };
  const peer = await startVendorPeer((req, res) => {
    if (req.method === "GET" && req.url.pathname === "/v1/rates") {
      if (req.url.searchParams.get("base") !== "USD") return json(res, 400, { error: "only USD" });
      return json(res, 200, { rates: state.rates, asOf: new Date().toISOString() });
    }
    if (req.method === "GET" && req.url.pathname === "/v1/prices") {
      const ids = (req.url.searchParams.get("ids") ?? "").split(",");
      return json(res, 200, { prices: Object.fromEntries(ids.filter((id) => id in state.prices).map((id) => [id, state.prices[id]])), asOf: new Date().toISOString() });
    }
    json(res, 404, { error: "no such route" });
  }, key);
  state = Object.assign(peer, state);
  return state as PricePeer;
}
