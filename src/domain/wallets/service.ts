import { notFound, unprocessable } from "../../errors.js";
import * as users from "../../db/repositories/users.js";
import * as wallets from "../../db/repositories/wallets.js";
import type { WalletRecoveryInput } from "./recovery-input.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
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

/** What the audit trail keeps of a wallet (public data only). */
export function walletSnapshot(w: wallets.WalletRecord) {
  return { id: w.id, userId: w.userId, name: w.name, chain: w.chain, address: w.address, provider: w.provider, properties: w.properties };
}

/** Links a wallet to a user. Fails with 422 when the user already has an embedded wallet linked (spec). */
export async function createWallet(deps: Deps, access: EnvironmentAccess, userId: string, input: WalletInput) {
  const environmentId = access.environmentId;
  return audited(deps, access, async (t, record) => {
    // Lock the user row so two concurrent links cannot both pass the embedded-wallet check. The user is
    // found first: another tenant's user id answers 404 whatever the body holds.
    if (!(await wallets.lockUser(t, environmentId, userId))) throw notFound("user");
    const prepared = prepareWallet(input);
    if (await wallets.userHasEmbeddedWallet(t, environmentId, userId))
      throw unprocessable("user_has_embedded_wallet", "the user already has an embedded wallet linked");
    if (await wallets.addressLinked(t, environmentId, prepared.chain, prepared.address))
      throw unprocessable("wallet_already_linked", `wallet ${prepared.address} is already linked to a user of this environment`);
    const created = await wallets.insertWallet(t, environmentId, userId, prepared).catch((err) => {
      if ((err as { code?: string }).code === "23505")
        throw unprocessable("wallet_already_linked", `wallet ${prepared.address} is already linked to a user of this environment`);
      throw err;
    });
    await record({ action: "wallet.created", resourceType: "wallet", resourceId: created.id, after: walletSnapshot(created) });
    return created;
  });
}

export async function listUserWallets(deps: Deps, access: EnvironmentAccess, userId: string) {
  if (!(await users.findUser(deps.db, access.environmentId, userId))) throw notFound("user");
  return wallets.listUserWallets(deps.db, access.environmentId, userId);
}

export function listEnvironmentWallets(deps: Deps, access: EnvironmentAccess, filters: wallets.WalletFilters, page: { offset: number; limit: number }) {
  return wallets.listEnvironmentWallets(deps.db, access.environmentId, filters, page);
}

export async function getWallet(deps: Deps, access: EnvironmentAccess, walletId: string) {
  const wallet = await wallets.findWallet(deps.db, access.environmentId, walletId);
  if (!wallet) throw notFound("wallet");
  return wallet;
}

/** Soft-deletes the wallet with its additional addresses and custody HD wallet (recoverable). */
export async function deleteWallet(deps: Deps, access: EnvironmentAccess, walletId: string): Promise<void> {
  await audited(deps, access, async (t, record) => {
    const wallet = await wallets.findWallet(t, access.environmentId, walletId);
    if (!wallet || !(await wallets.softDeleteWallet(t, access.environmentId, walletId))) throw notFound("wallet");
    await record({ action: "wallet.deleted", resourceType: "wallet", resourceId: walletId, before: walletSnapshot(wallet) });
  });
}

/**
 * Runs the recovery as a Temporal workflow (durable, one per user at a time) and waits for its result. The
 * activity writes the audit rows (wallet.recovered) in the transaction that recovers, so the actor travels
 * in the workflow input.
 */
export async function recoverWallets(deps: Deps, access: EnvironmentAccess, userId: string) {
  if (!(await users.findUser(deps.db, access.environmentId, userId))) throw notFound("user");
  const input: WalletRecoveryInput = {
    environmentId: access.environmentId,
    userId,
    audit: { organizationId: access.organizationId, actor: access.actor },
  };
  return deps.flows.recoverWallets(input);
}
