import { notFound, unprocessable } from "../../errors.js";
import * as users from "../../db/repositories/users.js";
import * as wallets from "../../db/repositories/wallets.js";
import type { Deps } from "../deps.js";
import { normalizeWalletAddress } from "./addresses.js";

export interface WalletInput {
  publicWalletAddress: string;
  chain: string;
  walletName: string;
  walletProvider: string;
  additionalWalletAddresses: { address: string; type: string; publicKey?: string }[];
}

/** Validates the address for its chain and returns the row to insert (canonical address form). */
export function prepareWallet(w: WalletInput): wallets.NewWallet {
  return {
    name: w.walletName,
    chain: w.chain,
    address: normalizeWalletAddress(w.chain, w.publicWalletAddress),
    provider: w.walletProvider,
    properties: {},
    additionalAddresses: w.additionalWalletAddresses.map((a) => ({ address: a.address.trim(), type: a.type, publicKey: a.publicKey || null })),
  };
}

/** Links a wallet to a user. Fails with 422 when the user already has an embedded wallet linked (spec). */
export async function createWallet(deps: Deps, environmentId: string, userId: string, input: WalletInput) {
  const prepared = prepareWallet(input);
  return deps.db.tx(async (t) => {
    // Lock the user row so two concurrent links cannot both pass the embedded-wallet check.
    const user = await t.oneOrNone("SELECT id FROM users WHERE environment_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE", [
      environmentId,
      userId,
    ]);
    if (!user) throw notFound("user");
    if (await wallets.userHasEmbeddedWallet(t, environmentId, userId))
      throw unprocessable("user_has_embedded_wallet", "the user already has an embedded wallet linked");
    if (await wallets.addressLinked(t, environmentId, prepared.chain, prepared.address))
      throw unprocessable("wallet_already_linked", `wallet ${prepared.address} is already linked to a user of this environment`);
    return wallets.insertWallet(t, environmentId, userId, prepared);
  });
}

export async function listUserWallets(deps: Deps, environmentId: string, userId: string) {
  if (!(await users.findUser(deps.db, environmentId, userId))) throw notFound("user");
  return wallets.listUserWallets(deps.db, environmentId, userId);
}

export async function getWallet(deps: Deps, environmentId: string, walletId: string) {
  const wallet = await wallets.findWallet(deps.db, environmentId, walletId);
  if (!wallet) throw notFound("wallet");
  return wallet;
}

export async function deleteWallet(deps: Deps, environmentId: string, walletId: string): Promise<void> {
  if (!(await wallets.softDeleteWallet(deps.db, environmentId, walletId))) throw notFound("wallet");
}

/** Runs the recovery as a Temporal workflow (durable, one per user at a time) and waits for its result. */
export async function recoverWallets(deps: Deps, environmentId: string, userId: string) {
  if (!(await users.findUser(deps.db, environmentId, userId))) throw notFound("user");
  return deps.flows.recoverWallets({ environmentId, userId });
}
