import type { WalletRecord } from "../../db/repositories/wallets.js";
import { ts } from "../mappers.js";

/** The spec's Wallet as it appears inside a User (the user is implied there). */
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

/** A wallet answered on its own (wallet operations): names its user. */
export function walletView(w: WalletRecord) {
  return { ...toWallet(w), userId: w.userId };
}

/** A wallet in the environment's wallet list (the client's WalletDetail). */
export function walletDetail(w: WalletRecord) {
  const { properties, ...wallet } = toWallet(w);
  return {
    ...wallet,
    properties,
    userId: w.userId,
    lowerPublicKey: w.address.toLowerCase(),
    walletAdditionalAddresses: w.additionalAddresses.map((a) => ({ address: a.address, type: a.type, publicKey: a.publicKey ?? "" })),
    custodyHdWalletId: w.custodyHdWalletId ?? "",
    projectEnvironmentId: w.environmentId,
    createdAt: ts(w.createdAt),
    updatedAt: ts(w.updatedAt),
  };
}
