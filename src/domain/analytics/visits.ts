import { randomUUID } from "node:crypto";
import { insertVisit } from "../../db/repositories/analytics.js";
import type { Deps } from "../deps.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { chainAliases, normalizeWalletAddress } from "../wallets/addresses.js";

/**
 * A visit the SDK reports for a connected wallet. The visitor id is the wallet itself (chain family and
 * canonical address), so unique visitors count wallets and a returning wallet is one visitor; an address
 * that is not valid on its chain is refused (400) rather than counted.
 */
export async function recordWalletVisit(deps: Pick<Deps, "db">, env: PublicEnvironment, input: { chain: string; address: string }): Promise<void> {
  const address = normalizeWalletAddress(input.chain, input.address);
  const chains = chainAliases(input.chain);
  await insertVisit(deps.db, env.environmentId, { id: randomUUID(), visitorId: `${chains[0]}:${address}`, chains, address });
}
