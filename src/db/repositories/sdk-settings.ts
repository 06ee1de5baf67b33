import type { Queryable } from "../db.js";

/** Whether the environment has a live wallet user with this email address (any case). */
export async function emailBelongsToWalletUser(q: Queryable, environmentId: string, email: string): Promise<boolean> {
  const row = await q.oneOrNone(
    `SELECT 1 FROM users u
      WHERE u.environment_id = $1 AND lower(u.email) = lower($2) AND u.deleted_at IS NULL
        AND EXISTS (SELECT 1 FROM wallets w WHERE w.environment_id = $1 AND w.user_id = u.id AND w.deleted_at IS NULL)
      LIMIT 1`,
    [environmentId, email],
  );
  return row !== null;
}
