import { randomUUID } from "node:crypto";
import { json, startVendorPeer, type PeerKey, type VendorPeer } from "./vendor-peer.js";

/** The payments a provider refuses: above its limit (the test's "provider_rejected"). */
export const RAMP_PEER_MAX_AMOUNT = 1_000_000;

/** A loopback ramp provider speaking Sigil's ramp protocol: a card on-ramp, a bank off-ramp, card payments deduplicated by Idempotency-Key. */
export interface RampPeer extends VendorPeer {
  payments: Map<string, Record<string, unknown>>;
}

export async function startRampPeer(peerKey?: PeerKey): Promise<RampPeer> {
  const payments = new Map<string, Record<string, unknown>>();
  const byKey = new Map<string, Record<string, unknown>>();
  let base = "";
  const peer = await startVendorPeer((req, res) => {
    const path = req.url.pathname;
    if (req.method === "GET" && path === "/v1/onramps")
      return json(res, 200, { onramps: [{ id: "card", name: "Card", iconUrl: `${base}/icons/card.svg`, url: `${base}/buy?flow=card` }, { id: "broken", name: "No URL" }] });
    if (req.method === "GET" && path === "/v1/offramps") return json(res, 200, { offramps: [{ id: "bank", name: "Bank transfer", iconUrl: `${base}/icons/bank.svg`, url: `${base}/sell` }] });
    if (req.method === "GET" && (path === "/buy" || path === "/sell")) return json(res, 200, { ok: true });
    if (req.method === "POST" && path === "/v1/card-payments") {
      const key = req.headers["idempotency-key"] as string | undefined;
      if (key && byKey.has(key)) return json(res, 200, byKey.get(key));
      const input = JSON.parse(req.body) as Record<string, unknown>;
      if (typeof input.amount !== "number" || input.amount > RAMP_PEER_MAX_AMOUNT) return json(res, 422, { error: `amount above the limit of ${RAMP_PEER_MAX_AMOUNT}` });
      const id = randomUUID();
      const payment = {
        id, amount: input.amount, currency: input.currency, paymentUrl: `${base}/pay/${id}`, qrCode: `qr:${id}`, status: "pending",
        created: Math.floor(Date.now() / 1000), orderId: input.orderId, metadata: input.metadata, liveMode: false,
      };
      payments.set(id, payment);
      if (key) byKey.set(key, payment);
      return json(res, 201, payment);
    }
    json(res, 404, { error: "no such route" });
  }, peerKey);
  base = peer.url;
  return Object.assign(peer, { payments });
}
