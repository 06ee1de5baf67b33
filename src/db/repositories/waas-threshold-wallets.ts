import type { Queryable } from "../db.js";

/**
 * Threshold WaaS wallets (migration 031: waas_wallets rows without a sealed key, owning share sets). Every
 * function is scoped by environment.
 */

export interface ThresholdWalletKey {
  chain: "EVM" | "SOL";
  address: string;
  publicKey: string;
}

/** The wallet's public key (activities, after the actor checked the wallet is the environment's). */
export async function thresholdWalletKey(q: Queryable, environmentId: string, walletId: string): Promise<ThresholdWalletKey> {
  return q.one("SELECT chain, address, public_key FROM waas_wallets WHERE environment_id = $1 AND id = $2", [environmentId, walletId], toKey);
}

export async function walletIdTaken(q: Queryable, walletId: string): Promise<boolean> {
  return (await q.oneOrNone("SELECT 1 FROM waas_wallets WHERE id = $1", [walletId])) !== null;
}

/** A threshold wallet of a user: no whole key anywhere, its shares are in its share sets. */
export async function insertThresholdWallet(q: Queryable, environmentId: string, w: { id: string; userId: string } & ThresholdWalletKey): Promise<void> {
  await q.none(
    `INSERT INTO waas_wallets (id, environment_id, user_id, chain, address, public_key, private_key_sealed)
     VALUES ($1, $2, $3, $4, $5, $6, NULL)`,
    [w.id, environmentId, w.userId, w.chain, w.address, w.publicKey],
  );
}

/** The server's sealed share of a set (holder 1), or null when it is gone. */
export async function serverShareSealed(q: Queryable, environmentId: string, shareSetId: string, holderIndex: number): Promise<string | null> {
  const row = await q.oneOrNone("SELECT share_sealed FROM waas_share_set_shares WHERE environment_id = $1 AND share_set_id = $2 AND holder_index = $3", [
    environmentId,
    shareSetId,
    holderIndex,
  ]);
  return row?.share_sealed ?? null;
}

const toKey = (r: Record<string, unknown>): ThresholdWalletKey => ({ chain: r.chain as "EVM" | "SOL", address: r.address as string, publicKey: r.public_key as string });
