import type { WalletRecord } from "../../db/repositories/wallets.js";
import { ts } from "../mappers.js";

export function toWallet(w: WalletRecord) {
  const p = w.properties as Record<string, unknown>;
  return {
    id: w.id,
    name: w.name,
    chain: w.chain,
    publicKey: w.address,
    provider: w.provider,
    properties: {
      custodyHdWalletId: w.custodyHdWalletId ?? "",
      version: typeof p.version === "string" ? p.version : "",
    },
    lastSelectedAt: ts(w.lastSelectedAt),
  };
}
