import type { Queryable } from "../db.js";

/** Marks one live wallet of the user as last selected; null when the user has no such wallet. */
export async function selectUserWallet(
  q: Queryable,
  environmentId: string,
  userId: string,
  walletId: string,
): Promise<{ id: string; chain: string; address: string } | null> {
  return q.oneOrNone(
    `UPDATE wallets SET last_selected_at = now()
      WHERE environment_id = $1 AND user_id = $2 AND id = $3 AND deleted_at IS NULL
      RETURNING id, chain, address`,
    [environmentId, userId, walletId],
  );
}

/**
 * Deletes the user row for good: its credentials, wallets, sessions, MFA devices, custom field values and
 * wallet connections go with it (ON DELETE CASCADE); visits keep their counts without the user (SET NULL).
 */
export async function hardDeleteUser(q: Queryable, environmentId: string, userId: string): Promise<boolean> {
  return (await q.result("DELETE FROM users WHERE environment_id = $1 AND id = $2", [environmentId, userId])).rowCount === 1;
}
