import type { GlobalWalletConnectionRecord } from "../../db/repositories/global-wallet-connections.js";
import { ts } from "../mappers.js";

/** A connection as both surfaces answer it (the published client's GlobalWalletConnection). */
export const toConnection = (c: GlobalWalletConnectionRecord) => ({
  id: c.id,
  userId: c.userId,
  appUrl: c.appUrl,
  status: c.status,
  expiresAt: ts(c.expiresAt),
  createdAt: ts(c.createdAt),
  updatedAt: ts(c.updatedAt),
});
